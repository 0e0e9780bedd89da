"""A person's own folder indexed and asked through the CLI: citations name the file and page."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.documents import encrypted, pdf_bytes, write_folder
from tests.integration.test_cli import one_line_error, searchain

SCRIPT = {
    "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
    "trace": "Lorenzo Monaco was influenced by Giotto [1]. So the final answer is Giotto.",
    "reader": "Answer: Giotto\nConfidence: 0.9",
}


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """A folder of every document type, indexed: ``(folder, index, the build's stderr)``."""
    base = tmp_path_factory.mktemp("documents")
    folder = write_folder(base / "archive")
    index = base / "index"
    done = searchain("index", str(folder), "--index", str(index))
    assert done.returncode == 3, done.stderr  # built, but a scanned page was skipped
    return folder, index, done.stderr


def test_a_folder_is_indexed_and_what_was_skipped_is_said(archive):
    _, index, stderr = archive
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith(f"indexed 5 files, 9 passages into {index} in ")
    assert summary.endswith(
        "; skipped 1: painters.pdf p. 2 (no text layer: a scan? searchain does no OCR); "
        "left out 1 file of other types (1 .png)"
    )
    verified = searchain("index", "--verify", str(index))
    assert verified.returncode == 0 and "9 passages" in verified.stdout, verified.stderr


def test_an_answer_cites_the_file_and_page_everywhere_it_is_shown(archive, tmp_path):
    folder, index, _ = archive
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    common = ["--index", str(index), "--llm", f"scripted:{script}", "--reader", "llm"]
    question = "Who influenced Lorenzo Monaco?"
    page = tmp_path / "answer.html"
    shown = searchain("ask", question, *common, "--db", str(tmp_path / "t.db"), "--html", str(page))
    assert shown.returncode == 0, shown.stderr
    assert "[1] Painters of Florence (painters.pdf, p. 3) · states its step" in shown.stdout
    assert "[painters.pdf, p. 3] → reader 'Giotto'" in shown.stderr  # the progress line
    link = (folder / "painters.pdf").as_uri() + "#page=3"
    assert f'<a href="{link}">painters.pdf, p. 3</a>' in page.read_text()
    as_json = searchain("ask", question, *common, "--db", str(tmp_path / "j.db"), "--json")
    assert as_json.returncode == 0, as_json.stderr
    (reference,) = json.loads(as_json.stdout)["references"]
    assert reference["id"] == "painters.pdf#2"
    source = reference["source"]
    assert (source["path"], source["page"], source["section"]) == ("painters.pdf", 3, "")
    text = "\n".join(pdf_page for pdf_page in ["Lorenzo Monaco was an Italian painter"])
    assert text in reference["text"] and source["start"] == 0 and source["end"] > 100


def test_bad_files_are_skipped_each_with_its_reason_and_the_rest_indexed(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    good = pdf_bytes([["A fine page about frescoes."]])
    (folder / "good.pdf").write_bytes(good)
    (folder / "locked.pdf").write_bytes(encrypted(good))
    (folder / "cut.pdf").write_bytes(good[:150])
    (folder / "fake.txt").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    (folder / "latin.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (folder / "big.html").write_text("<p>" + "word " * 3000 + "</p>")
    (folder / "loop").symlink_to(".")
    index = tmp_path / "index"
    done = searchain("index", str(folder), "--index", str(index), "--max-file-size", "8KiB")
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("indexed 1 file, 1 passage into ")
    for skipped in [
        "big.html (14.7 KiB, over the 8 KiB bound)",
        "cut.pdf (not a readable PDF: PDFium: data format error);",
        "fake.txt (binary data, not text)",
        "latin.md (not UTF-8 text at byte 6: convert it to UTF-8)",
        "locked.pdf (encrypted: it needs a password to open)",
        "loop (symbolic link loop)",
    ]:
        assert skipped in line, line
    assert "Traceback" not in done.stderr
    assert searchain("index", "--verify", str(index)).returncode == 0


def test_nothing_readable_is_one_line_and_no_index(tmp_path):
    (tmp_path / "locked.pdf").write_bytes(encrypted(pdf_bytes([["text"]])))
    index = tmp_path / "index"
    done = searchain("index", str(tmp_path / "locked.pdf"), "--index", str(index))
    one_line_error(done, "nothing to index: skipped 1: locked.pdf (encrypted")
    assert not index.exists()


def test_an_unreadable_file_is_skipped_for_its_permissions():
    # Root reads any file: the walk then runs as nobody (its imports done first, as root: the
    # interpreter lives under /root), as a user without the right would.
    base = Path(tempfile.mkdtemp())
    try:
        base.chmod(0o755)
        (base / "open.md").write_text("# Open\n\nreadable text\n")
        (base / "locked.md").write_text("# Locked\n")
        (base / "locked.md").chmod(0)
        code = (  # the readable file read first, as root: every module it needs imported
            "import os, sys; from searchain.documents.collection import Documents\n"
            "list(Documents([sys.argv[1] + '/open.md']))\n"
            "d = Documents([sys.argv[1]])\n"
            # its reading process started as root too: nobody cannot run root's interpreter
            "d._reader._start()\n"
            "if os.geteuid() == 0: os.setgid(65534); os.setuid(65534)\n"
            "list(d); print(d.summary())"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, str(base)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == (
            "indexed 1 file, 1 passage; skipped 1: locked.md (unreadable (Permission denied))"
        )
    finally:
        shutil.rmtree(base)


def test_what_only_documents_take_is_refused_for_a_corpus(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "title": "", "text": "x"}\n')
    done = searchain("index", str(corpus), "--index", str(tmp_path / "i"), "--include", "*.md")
    one_line_error(done, "--include: options for documents, not a corpus file")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    done = searchain("index", str(tmp_path / "photo.png"), "--index", str(tmp_path / "i"))
    one_line_error(done, "photo.png is neither a corpus file", "nor a document: PDF, HTML")
    done = searchain("index", str(tmp_path), "--format", "tsv", "--index", str(tmp_path / "i"))
    one_line_error(done, "--format names a corpus file's format: documents need none")


def test_update_from_the_command_line_and_what_it_refuses(tmp_path):
    folder = write_folder(tmp_path / "archive")
    index = tmp_path / "index"
    assert searchain("index", str(folder), "--index", str(index)).returncode == 3
    (folder / "readme.txt").write_text("Plain notes, rewritten.\n")
    (folder / "notes.docx").unlink()
    (folder / "added.md").write_text("# Added\n\nA new page.\n")
    done = searchain("index", str(folder), "--index", str(index), "--update")
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith(f"updated {index}: 1 added, 1 changed, 1 removed, 3 unchanged (")
    again = searchain("index", "--index", str(index), "--update")  # the paths are remembered
    assert again.stderr.strip().splitlines()[-1].startswith(f"up to date {index}: 0 added")
    for extra, said in [
        (["--include", "*.md"], "--include: --update brings a documents index up to date"),
        (["--overwrite"], "--overwrite: --update brings a documents index up to date"),
        ([str(tmp_path)], "--update walks those again (give them, or no path)"),
        (["--k1", "2", "--workers", "1"], "--k1, --workers: --update brings"),
        (["--tokenizer", "standard"], "--tokenizer: --update brings"),
        (["--backend", "elasticsearch", "--shards", "2"], "--shards: --update brings"),
    ]:
        one_line_error(searchain("index", "--index", str(index), "--update", *extra), said)
    for other, named in [  # an index alone: nothing else
        (["--update"], "--update"),
        ([str(tmp_path)], "PATH"),
        (["--demo"], "--demo"),
        (["--k1", "2", "--include", "*.md"], "--include, --k1"),
    ]:
        refused = searchain("index", "--verify", str(index), *other)
        one_line_error(refused, f"{named}: --verify DIR checks an index alone")
