"""Issue 67, case 1: a file's bytes bounded nothing its parse cost. Each document is now read in
a process of its own, within a memory, CPU, time and output budget; a file over one is skipped
with which, and its neighbours are read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from searchain.documents.collection import Documents
from searchain.documents.extracted import Unreadable
from searchain.documents.reading import Budget, PageBound, Reader
from tests.conftest import ROOT
from tests.documents import docx_body


def paragraph(text: str) -> bytes:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()


def test_a_file_is_read_in_another_process_and_comes_back_whole():
    with Reader() as reader:
        reading = reader.read("docx", docx_body(paragraph("Giotto taught Lorenzo.")), "a.docx")
        child = reader._child
        assert child is not None and child.pid != os.getpid()
        again = reader.read("text", b"Plain words.\n", "b.txt")  # the same process, reused
        assert reader._child is child
    assert child.poll() is not None  # stopped once the reader is closed
    assert reading.pages is None and [s.text for s in reading.document.sections] == [
        "Giotto taught Lorenzo."
    ]
    assert again.document.sections[0].text.strip() == "Plain words."


def test_a_docx_bomb_stops_at_the_memory_budget_and_the_next_file_is_read():
    """24 MiB of empty paragraphs in 70 KiB: lxml's tree of them is far over 128 MiB."""
    bomb = docx_body(b"<w:p/>" * (4 << 20))
    assert len(bomb) < 128 << 10
    with Reader(Budget(memory_mib=128)) as reader:
        with pytest.raises(Unreadable, match="over the reading budget of 128 MiB of memory"):
            reader.read("docx", bomb, "bomb.docx")
        assert reader._child is None  # a process that ran out of memory is not reused
        after = reader.read("text", b"The neighbour.\n", "next.txt")
    assert after.document.sections[0].text.strip() == "The neighbour."


def test_a_parse_over_its_cpu_budget_is_stopped_by_the_kernel():
    """300,000 empty paragraphs: seconds of python-docx, little memory."""
    slow = docx_body(b"<w:p/>" * 300_000)
    budget = Budget(base_seconds=0.5, seconds_per_mib=0.001)
    with (
        Reader(budget) as reader,
        pytest.raises(Unreadable, match=r"over the reading budget of 0\.5 CPU seconds"),
    ):
        reader.read("docx", slow, "slow.docx")


def test_a_reader_past_its_wall_deadline_is_killed():
    budget = Budget(base_seconds=0.2, seconds_per_mib=0.001, slack_seconds=0.2)
    with Reader(budget) as reader:
        child = reader._start()
        os.kill(child.pid, signal.SIGSTOP)  # it takes no CPU, so only the deadline can stop it
        with pytest.raises(Unreadable, match=r"over the reading budget of 0\.6 s for its size"):
            reader.read("text", b"Words.\n", "stuck.txt")
        assert child.poll() == -signal.SIGKILL


def test_text_beyond_what_the_bytes_allow_is_refused():
    """One paragraph of 2 million letters deflates to a few KiB: a decompression bomb."""
    bomb = docx_body(paragraph("a" * 2_000_000))
    budget = Budget(base_chars=1000, chars_per_byte=10)
    with Reader(budget) as reader:
        with pytest.raises(Unreadable, match=r"2,000,000 characters of text from [\d.]+ KiB"):
            reader.read("docx", bomb, "letters.docx")
        plain = b"word " * 1000  # plain text gives a character a byte: well within
        assert reader.read("text", plain, "plain.txt").document.sections


def test_a_pdf_whose_page_inflates_past_the_budget_is_skipped_and_its_neighbour_read(tmp_path):
    """Issue 67, case 7 (not tried before): a compression bomb inside a PDF's content stream.
    PDFium, out of address space, aborts the reading process; the build goes on."""
    from tests.documents import pdf_bomb

    bomb = pdf_bomb(100 << 20)
    assert len(bomb) < 512 << 10
    (tmp_path / "bomb.pdf").write_bytes(bomb)
    (tmp_path / "notes.txt").write_text("The neighbour is read.\n")
    documents = Documents([tmp_path], budget=Budget(memory_mib=128))
    assert [" ".join(p.text.split()) for p in documents] == ["The neighbour is read."]
    [skipped] = documents.skipped
    assert skipped.path == "bomb.pdf"
    assert skipped.reason.startswith(("over the reading budget", "its reader stopped (SIG"))
    assert "128 MiB" in skipped.reason


def test_a_pdf_over_the_callers_page_bound_is_refused_before_it_is_read(tmp_path):
    from tests.documents import pdf_bytes

    data = pdf_bytes(["one", "two", "three"])
    with Reader() as reader:
        with pytest.raises(PageBound) as refused:
            reader.read("pdf", data, "three.pdf", max_pages=2)
        assert refused.value.pages == 3
        assert reader.read("pdf", data, "three.pdf", max_pages=3).pages == 3


def test_a_folder_with_a_bomb_indexes_its_neighbours_and_names_the_bomb(tmp_path):
    (tmp_path / "bomb.docx").write_bytes(docx_body(b"<w:p/>" * (4 << 20)))
    (tmp_path / "notes.md").write_text("# Notes\n\nGiotto taught Lorenzo Monaco.\n")
    documents = Documents([tmp_path], budget=Budget(memory_mib=128))
    passages = list(documents)
    assert [p.source.path for p in passages if p.source] == ["notes.md"]
    assert documents.summary() == (
        "indexed 1 file, 1 passage; skipped 1: bomb.docx "
        "(over the reading budget of 128 MiB of memory)"
    )


def test_the_reading_process_holds_the_memory_the_parent_never_takes(tmp_path):
    """Peak RSS of each process: the reading one within its budget, the build's far below the
    2.9 GB the bomb took when it was parsed in the process that indexes."""
    (tmp_path / "bomb.docx").write_bytes(docx_body(b"<w:p/>" * (16 << 20)))
    script = (
        "import json, resource, sys\n"
        "from searchain.documents.collection import Documents\n"
        "documents = Documents([sys.argv[1]])\n"
        "list(documents)\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
        "print(json.dumps({'skipped': [s.reason for s in documents.skipped], 'self': int(status),\n"
        "  'reader': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n"
    )  # VmHWM: ru_maxrss of a process keeps its parent's peak across exec (pytest's, here)
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=True,
    )
    measured = json.loads(done.stdout)
    assert measured["skipped"] == ["over the reading budget of 512 MiB of memory"]
    assert measured["reader"] <= 512 << 10  # KiB
    assert measured["self"] < 256 << 10


@pytest.mark.parametrize(
    "settings",
    [{"memory_mib": 63}, {"seconds": 0}, {"base_chars": 0}, {"slack_seconds": -1}],
)
def test_a_budget_that_cannot_read_anything_is_refused(settings):
    with pytest.raises(ValueError, match="reading budget"):
        Budget(**settings)
