"""The ``searchain`` command as a user runs it: a real process, real files, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from searchain.tools.retrieval.embedded.index import BM25Index
from tests.tiny_models import make_dpr_reader


def searchain(*args: str, env: dict | None = None, timeout: int = 900, cwd=None):
    """Run the CLI in a scratch directory, so its default --db never lands in the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "searchain", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd or tempfile.gettempdir(),
    )


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "demo-index"
    done = searchain("index", "--demo", "--index", str(path))
    assert done.returncode == 0, done.stderr
    assert "indexed 390 passages" in done.stderr
    return path


def one_line_error(done, *fragments: str) -> None:
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def results_file(path: Path) -> Path:
    """A results file of one question, as `searchain eval` writes them (for `report`)."""
    config = dict.fromkeys(("p", "u", "seed")) | {"dataset": "musique", "split": "tune"}
    config |= {"method": "oner", "llm": "local", "reader": "none", "backend": "embedded"}
    line = {"id": "q", "config": config, "metrics": {"cover_em": 1.0}, "rounds": 1, "steps": 1}
    line |= {"usage": {"llm": {"calls": 1, "words_in": 9, "words_out": 3}}, "seconds": 1.0}
    path.write_text(json.dumps(line) + "\n")
    return path


def test_bad_corpus_line_is_named_and_no_index_is_left(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "a", "text": "fine"}\n{"id": "b"}\n')
    done = searchain("index", str(corpus), "--index", str(tmp_path / "idx"))
    one_line_error(done, "corpus.jsonl:2", '"text"')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]


def test_existing_index_needs_overwrite(demo_index):
    one_line_error(searchain("index", "--demo", "--index", str(demo_index)), "--overwrite")
    assert searchain("index", "--demo", "--index", str(demo_index), "--overwrite").returncode == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--llm", "gpt9"], "unknown LLM spec 'gpt9'"),
        (["--llm", "gpt9"], "scripted:FILE.json"),  # issue 33, case 12: every CLI spec named
        (["--reader", "bert"], "unknown reader 'bert'"),
        (["--task", "poetry"], "unknown task 'poetry'"),
        (["--r-max", "0"], "r_max must be between 1 and 10"),
        (["--theta", "nan"], "theta must be a finite number"),
    ],
)
def test_bad_options_get_one_line_errors(demo_index, args, fragment):
    one_line_error(searchain("ask", "Who?", "--index", str(demo_index), *args), fragment)


def test_an_option_given_another_option_as_value_is_refused(tmp_path, demo_index):
    """`--db --json` is a forgotten value, not a database file named `--json`."""
    done = searchain("ask", "Who?", "--index", str(demo_index), "--db", "--json", cwd=tmp_path)
    one_line_error(done, "--db needs a value", "'--json'")
    done = searchain("index", "--index", "--demo", cwd=tmp_path)
    one_line_error(done, "--index needs a value", "'--demo'")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--k1", "nan"], "k1 must be a number from 0 to 10"),
        (["--b", "2"], "b must be a number from 0 to 1"),
    ],
)
def test_bad_index_settings_are_refused_before_the_good_index_is_touched(
    demo_index, args, fragment
):
    before = sorted(p.name for p in demo_index.iterdir())
    done = searchain("index", "--demo", "--index", str(demo_index), "--overwrite", *args)
    one_line_error(done, fragment)
    assert sorted(p.name for p in demo_index.iterdir()) == before


def test_a_folder_without_documents_is_named_as_one(tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    done = searchain("index", str(tmp_path), "--index", str(tmp_path / "i"))
    one_line_error(done, "nothing to index: left out 1 file of other types (1 .png)")
    assert not (tmp_path / "i").exists()


def test_missing_index_and_blank_question(tmp_path, demo_index):
    one_line_error(
        searchain("ask", "Who?", "--index", str(tmp_path / "none"), "--reader", "llm"),
        "is not a searchain index",
        "searchain index CORPUS.jsonl",
    )
    one_line_error(searchain("ask", "  ", "--index", str(demo_index)), "question is empty")


def test_an_index_whose_first_build_runs_is_not_built_yet_and_not_built_twice(tmp_path):
    """Issue 41, case 8: `searchain ask --index wiki` (or a second `searchain index`) during
    wiki's first build swept the build's directory. Both are one line now; nothing touched."""
    from searchain.tools.retrieval.embedded.directory.files import build_lock, new_version

    path = tmp_path / "wiki"
    with build_lock(path):  # this test process is the build in progress
        in_progress = new_version(path)
        (in_progress / "passages.zst").write_bytes(b"half")
        one_line_error(
            searchain("ask", "Who?", "--index", str(path), "--reader", "llm"),
            "is not built yet",
            f"is being built by process {os.getpid()}",
        )
        one_line_error(
            searchain("index", "--demo", "--index", str(path)),
            f"is being built by process {os.getpid()}",
        )
        assert (in_progress / "passages.zst").read_bytes() == b"half"
    done = searchain("index", "--demo", "--index", str(path))  # the build gone: it runs
    assert done.returncode == 0, done.stderr
    assert not in_progress.exists()


@pytest.mark.parametrize(("written", "version"), [("demo-index", 1), ("format2/demo-index", 2)])
def test_an_index_of_a_pre_release_format_is_refused_naming_the_rebuild(written, version):
    """The floor is index format 3: a pre-release's index (format 1: a score matrix and JSON
    lines; 2: no table of block firsts) is refused in one line, never misread."""
    old = Path(__file__).resolve().parents[1] / "data" / "legacy" / written
    asked = searchain("ask", "Who?", "--index", str(old), "--reader", "llm")
    one_line_error(
        asked,
        f"{old} has index format {version}, this searchain reads format 3: rebuild it with "
        f"`searchain index CORPUS.jsonl --index {old}`",
    )
    verified = searchain("index", "--verify", str(old))
    one_line_error(verified, f"has index format {version}")


def test_missing_reader_weights_offline(demo_index, local_llm_available):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = searchain(
        "ask", "Who?", "--index", str(demo_index), "--reader", "dpr", "--llm", "local", env=env
    )
    one_line_error(done, "facebook/dpr-reader-multiset-base", "--reader llm")


def test_ask_end_to_end_with_the_real_local_llm(demo_index, tmp_path, local_llm_available):
    """Real SmolLM2, real BM25 over the demo corpus, a tiny random DPR reader; no accuracy claim."""
    reader = make_dpr_reader(tmp_path / "dpr")
    done = searchain(
        "ask",
        "Lorenzo Monaco was influenced by which Italian painter and architect?",
        "--index",
        str(demo_index),
        "--llm",
        "local",
        "--reader",
        f"dpr:{reader}",
        "--r-max",
        "2",
        "--json",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert set(result) >= {"answer", "final_content", "references", "nodes", "rounds", "tree"}
    assert 1 <= result["rounds"] <= 2
    assert result["stop_reason"] in ("chain_passed", "max_rounds", "no_chain")
    index = BM25Index.load(demo_index)
    corpus = {p.id: p for p in map(index.passage, range(len(index)))}
    for ref in result["references"]:  # every citation resolves to a real passage
        assert corpus[ref["id"]].text == ref["text"]
        assert f"[{ref['n']}]" in result["final_content"]
    cited = {ref["n"] for ref in result["references"]}
    steps = {node["step"]: node for node in result["nodes"] if node["step"] is not None}
    assert cited <= set(steps)
    for node in result["nodes"]:
        assert node["query"]
        assert node["source"] in ("llm", "corrected", "completed", None)
        if node["passage_id"] is not None:
            assert node["passage_id"] in corpus
    assert "round 1" in done.stderr  # the progress display ran


def test_help_names_every_option_whole_and_the_environment_variables():
    """Issue 33, case 12: flags were shown as `--json <bool>`, names were cut at 80 columns
    (`--approve-correctio…`), and the environment variables honoured were not shown."""
    done = searchain("ask", "--help", env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "--approve-corrections / --no-approve-corrections" in text
    assert "--json " in text and "<bool>" not in text and "…" not in text
    for name in ("SEARCHAIN_LLM", "SEARCHAIN_READER", "SEARCHAIN_VERIFIER", "SEARCHAIN_INDEX"):
        assert name in text, name
    for command in ("eval", "index"):
        assert "SEARCHAIN_" in searchain(command, "--help").stdout


def test_a_command_line_the_parser_cannot_read_exits_2_without_a_box():
    done = searchain("ask", "Who?", "--bogus")
    assert done.returncode == 2
    assert "Error: No such option: --bogus" in done.stderr and "╭" not in done.stderr


def test_mistakes_around_corpora_and_reports_name_the_fix(tmp_path):
    """Issue 33, case 12: a JSON-array corpus was sent to --format; `report DIR` said "does not
    exist"; `report --out FILE` gave a raw [Errno 17]; `searchain-server-key --help` read
    "--help" as a key file."""
    array = tmp_path / "corpus.json"
    array.write_text('[{"id": "a", "title": "t", "text": "x"}]\n')
    done = searchain("index", str(array), "--index", str(tmp_path / "i"))
    one_line_error(done, "is a JSON array: give one JSON object per line", "jq -c")
    one_line_error(searchain("report", str(tmp_path)), "is a directory: give the results files")
    results = results_file(tmp_path / "r.jsonl")
    one_line_error(
        searchain("report", str(results), "--out", str(array)), "is a file: give a directory"
    )
    key = subprocess.run(
        [str(Path(sys.executable).with_name("searchain-server-key")), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert key.returncode == 0 and key.stdout.startswith("usage: searchain-server-key [FILE]")


def test_a_reader_that_cannot_load_offline_fails_at_once_and_leaves_nothing(demo_index, tmp_path):
    """Issue 33, case 5: `ask` with `--reader dpr` (then the default; `auto` is now) and no
    network printed 11 Hugging Face retry lines over 36 s before its error, after creating the
    thread database."""
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"chains": ["[Query 1]: Who?\n[Answer 1]: Giotto"]}))
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    env["HF_ENDPOINT"] = "http://127.0.0.1:9"  # the discard port: nothing listens, as offline
    env["HF_HOME"] = str(tmp_path / "hf")  # an empty cache
    done = searchain("ask", "Who?", "--index", str(demo_index), "--llm", f"scripted:{script}",
                     "--reader", "dpr", env=env, cwd=tmp_path)  # fmt: skip
    one_line_error(done, "facebook/dpr-reader-multiset-base", "is unreachable", "--reader llm")
    assert not (tmp_path / ".searchain").exists()  # no thread database, no thread


def test_methods_lists_the_registry_in_order():
    """One list for all: what ``eval --method`` takes, what ``run_table1.sh`` runs."""
    from searchain.methods import METHODS

    done = searchain("methods")
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows == [[name, m.description] for name, m in METHODS.items()]
    table1 = searchain("methods", "--table1").stdout.splitlines()
    assert [line.split("\t")[0] for line in table1] == [n for n, m in METHODS.items() if m.table1]
    assert "ircot" not in {line.split("\t")[0] for line in table1}


def test_output_read_only_in_part_ends_quietly(tmp_path):
    """``searchain methods | head -1``: the reader stops early; no error line, the line it read."""
    done = subprocess.run(
        f"{sys.executable} -m searchain methods | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.stdout.startswith("direct\t") and len(done.stdout.splitlines()) == 1
    assert "error" not in done.stderr.lower() and "Broken pipe" not in done.stderr
