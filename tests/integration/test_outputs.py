"""No output option destroys anything, and what the CLI prints is never cut.

``--html``, ``eval --out`` and ``report --out`` are checked before any work: a directory, a
missing folder, a link, the command's own database or index, or a file searchain did not write is
refused in one line; a file searchain wrote is replaced whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_cli import one_line_error, results_file, searchain
from tests.server import write_script

pytestmark = pytest.mark.integration

LONG = (
    "Which Italian painter and architect of the early Renaissance, trained in Florence, "
    "influenced the late Gothic painter Lorenzo Monaco?"
)
SCRIPT = {
    "chains": [f"[Query 1]: {LONG}\n[Answer 1]: Giotto\n[Final Content]: Giotto [1]."],
    "trace": "Lorenzo Monaco was influenced by Giotto [1]. So the final answer is Giotto.",
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("outputs")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    # The model reads too (write_script's reader, `--reader llm`): what is tested here is what
    # the CLI writes, and a reader of weights would import PyTorch in every process.
    script = write_script(root / "script.json", **SCRIPT)
    common = ["--index", str(root / "index"), "--llm", f"scripted:{script}"]
    return root, [*common, "--reader", "llm"]


def ask(setup, db: Path, *extra: str):
    _, common = setup
    return searchain("ask", "Who influenced Lorenzo Monaco?", *common, "--db", str(db), *extra)


def test_html_never_replaces_the_index_the_database_or_a_file_of_someone_else(setup, tmp_path):
    """Issue 42, case 2: `--html idx` replaced the index link with a page; `show --db x.sqlite
    --html x.sqlite` replaced the thread database (every thread gone)."""
    root, _ = setup
    db = tmp_path / "t.sqlite"
    index = root / "index"
    before = sorted(p.name for p in index.iterdir())
    one_line_error(ask(setup, db, "--html", str(index)), "is also --index's path")
    assert sorted(p.name for p in index.iterdir()) == before
    one_line_error(ask(setup, db, "--html", str(db)), "is also --db's path")
    assert not db.exists()  # refused before any work: no database, no thread
    for beside in ("-wal", "-shm", "-journal", ".locks"):  # the files SQLite opens beside it
        one_line_error(ask(setup, db, "--html", f"{db}{beside}"), "is also --db's path")
    done = ask(setup, db, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    thread = json.loads(done.stdout)["thread"]
    database = db.read_bytes()
    for path in (str(db), f"{tmp_path}/./t.sqlite"):  # the same file by another name
        shown = searchain("show", thread, "--db", str(db), "--html", path)
        one_line_error(shown, "is also --db's path")
    assert db.read_bytes() == database
    assert searchain("show", thread, "--db", str(db)).returncode == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    refused = searchain("show", thread, "--db", str(db), "--html", str(notes))
    one_line_error(refused, "exists and is not a page searchain wrote", "--force")
    assert notes.read_text() == "mine"
    forced = searchain("show", thread, "--db", str(db), "--html", str(notes), "--force")
    assert forced.returncode == 0 and "searchain" in notes.read_text()


def test_html_paths_that_cannot_be_written_are_refused_before_the_run(setup, tmp_path):
    """Issue 42, case 2: `--html DIR` failed after every LLM call with a raw `[Errno 21]`;
    `--html /nonexistent/x.html` created the directory."""
    db = tmp_path / "t.sqlite"
    one_line_error(ask(setup, db, "--html", str(tmp_path)), "is a directory: give a file path")
    missing = tmp_path / "absent" / "x.html"
    one_line_error(ask(setup, db, "--html", str(missing)), "does not exist: create it")
    assert not missing.parent.exists()
    target = tmp_path / "target.html"
    target.write_text("not a page")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    one_line_error(ask(setup, db, "--html", str(link), "--force"), "is a link")
    assert target.read_text() == "not a page" and link.is_symlink()
    assert not db.exists()


def test_a_page_searchain_wrote_is_replaced_whole(setup, tmp_path):
    page = tmp_path / "answer.html"
    db = tmp_path / "t.sqlite"
    for _ in range(2):
        done = ask(setup, db, "--html", str(page))
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"wrote {page}" in done.stderr
    assert page.read_text().count("<article") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


def test_the_tree_is_never_cut_in_a_pipe(setup, tmp_path):
    """Issue 42, case 3: piped or saved, the tree was cut at 80 columns, losing the verdict and
    the `node N` that `searchain edit` needs."""
    done = ask(setup, tmp_path / "t.sqlite")
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if LONG in line)
    assert line.endswith(", node 0)"), line
    assert len(line) > 150


def test_eval_and_report_outputs_are_checked_before_any_work(tmp_path):
    """Issue 42, case 2: `eval --out DIR` gave a raw `[Errno 21]`; a report folder's own
    report.md of someone else's was overwritten."""
    common = ["--dataset", "musique", "--method", "searchain", "--llm", "simulated"]
    common += ["--reader", "simulated"]
    done = searchain("eval", *common, "--out", str(tmp_path), "--limit", "1")
    one_line_error(done, "--out", "is a directory")
    assert "Errno" not in done.stderr
    done = searchain("eval", *common, "--out", str(tmp_path / "no" / "r.jsonl"), "--limit", "1")
    one_line_error(done, "does not exist: create it")
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "report.md").write_text("# My notes\n")
    results = results_file(tmp_path / "r.jsonl")
    refused = searchain("report", str(results), "--out", str(folder))
    one_line_error(refused, "report.md exists and is not a report searchain wrote", "--force")
    assert (folder / "report.md").read_text() == "# My notes\n"
    assert searchain("report", str(results), "--out", str(folder), "--force").returncode == 0
    again = searchain("report", str(results), "--out", str(folder))  # its own: replaced
    assert again.returncode == 0, again.stderr
    assert (folder / "report.md").read_text().startswith("# searchain evaluation report")
