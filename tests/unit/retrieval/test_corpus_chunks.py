"""A corpus cut into chunks of whole records, read where they land: here or in a build worker."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchain import demo_corpus
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus import readers as corpus_module
from searchain.tools.retrieval.corpus import rowscan
from searchain.tools.retrieval.corpus.readers import CorpusError, read_corpus
from searchain.tools.retrieval.corpus.rows import tsv_rows
from searchain.tools.retrieval.embedded.indexer.workers import encoded_batches

HEADER = b"id\ttext\ttitle\n"
# What decides where a TSV record ends: quotes (doubled, opening a field or inside one), tabs,
# newlines, carriage returns; and letters, multi-byte ones among them.
PIECES = [
    *[b'"', b'""', b"\t", b"\n", b"\r", b"\r\n", b"a", b"bc", "é".encode(), "\u3000".encode()],
    b"\xff",  # no UTF-8
]


def csv_rows(data: bytes) -> list[tuple[int, list[str]]] | tuple[str, int]:
    """What Python's csv reads from a file of ``data``, decoded line by line: its rows after the
    header, each with its last line's number; or why and where it stops."""
    lines = io.BytesIO(data).readlines()
    number = 0

    def text() -> object:
        nonlocal number
        for number, line in enumerate(lines, 1):  # noqa: B007 - read by the reader's rows
            yield line.decode()

    reader = csv.reader(text(), delimiter="\t")
    try:
        return [(number, row) for row in reader][1:]
    except csv.Error:
        return "a carriage return", number
    except UnicodeDecodeError:
        return "not UTF-8", number


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=st.lists(st.sampled_from(PIECES), max_size=60).map(b"".join),
    bom=st.booleans(),
    rows=st.sampled_from([1, 2, 3, 1000]),
    read=st.sampled_from([1, 2, 7, 1 << 20]),
)
def test_chunks_end_where_csv_ends_a_record(tmp_path_factory, body, bom, rows, read):
    """Whatever the quoting, newlines and reads, the chunks hold the records csv reads from the
    whole file, with the same line numbers; a line csv refuses is refused at its number."""
    path = tmp_path_factory.mktemp("c") / "c.tsv"
    path.write_bytes(b"\xef\xbb\xbf" * bom + HEADER + body)
    expected = csv_rows(HEADER + body)
    corpus_module.READ, before = read, corpus_module.READ
    try:
        corpus = read_corpus(path)
        if isinstance(expected, tuple):
            why, line = expected
            with pytest.raises(CorpusError, match=rf"c\.tsv:{line}: {why}"):
                [row for chunk in corpus.chunks(rows) for row in tsv_rows(chunk)]
            return
        chunks = list(corpus.chunks(rows))
    finally:
        corpus_module.READ = before
    assert [row for chunk in chunks for row in tsv_rows(chunk)] == expected
    assert all(len(list(tsv_rows(chunk))) <= rows for chunk in chunks)
    assert b"".join(chunk.data for chunk in chunks) == body  # every byte, once, in order


def test_json_lines_are_cut_at_newlines_only(tmp_path):
    """A carriage return or a Unicode line break is no line end to a file's lines, nor here."""
    lines = [
        json.dumps({"id": f"{i}", "text": f"line\r{i}\u2028x"}, ensure_ascii=False) + "\n"
        for i in range(7)
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(lines), newline="")
    chunks = list(read_corpus(path).chunks(3))
    assert [(chunk.number, chunk.data.count(b"\n")) for chunk in chunks] == [(1, 3), (4, 3), (7, 1)]
    assert [p.text for p in read_corpus(path)] == [f"line\r{i}\u2028x" for i in range(7)]


def tsv_corpus(path: Path, lines: list[str]) -> Path:
    """3,000 passages as a TSV file, ``lines`` (raw) put in after the 2,500th."""
    words = [p.text.split() for p in read_corpus(demo_corpus())]
    rows = [
        (f"p{i}", " ".join([f"passage{i}", *words[i % len(words)][i % 7 :]]), f"Title {i % 13}")
        for i in range(3000)
    ]
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(["id", "text", "title"])
    writer.writerows(rows[:2500])
    out.write("".join(lines))
    writer.writerows(rows[2500:])
    path.write_text(out.getvalue())
    return path


def test_a_corpus_read_by_workers_builds_the_index_one_process_builds(tmp_path, to_workers):
    path = tsv_corpus(tmp_path / "c.tsv", ['x1\t"a quoted\ntext\t""here"""\tT\n', "\n"])
    passages = [(p.id, p.title, p.text) for p in read_corpus(path)]
    assert ("x1", "T", 'a quoted\ntext\t"here"') in passages  # read as csv reads it
    batches = list(encoded_batches(read_corpus(path), "standard", workers=2, batch=700))
    assert {worker for worker, _ in batches} == {0, 1}  # both workers read chunks
    stored = [json.loads(line) for _, b in batches for line in b.lines.splitlines()]
    assert [(s["id"], s["title"], s["text"]) for s in stored] == passages
    read = embedded.build(read_corpus(path), tmp_path / "read", embedded.Options(workers=2))
    handed = embedded.build(
        iter(read_corpus(path)), tmp_path / "handed", embedded.Options(workers=0)
    )
    files = sorted(p.relative_to(read.path) for p in read.path.rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(handed.path) for p in handed.path.rglob("*") if p.is_file()
    )
    assert all((read.path / f).read_bytes() == (handed.path / f).read_bytes() for f in files)


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (["x1\tno title\n"], r"c\.tsv:2502: 2 tab-separated fields, the header has 3"),
        (["x1\tbroken\rhere\tT\n"], r"c\.tsv:2502: a carriage return inside an unquoted field"),
        (["x1\t \tT\n"], r'c\.tsv:2502: missing or empty "text"'),
        ([f"{sys.maxsize}\tagain\tT\n", "p0\tagain\tT\n"], r":2503: id 'p0' repeats line 2"),
    ],
    ids=["fields", "carriage-return", "empty-text", "repeat"],
)
def test_a_bad_line_read_by_a_worker_stops_the_build_naming_it(tmp_path, to_workers, lines, error):
    """The worker's error is the one reading here raises, and nothing is published."""
    path = tsv_corpus(tmp_path / "c.tsv", lines)
    with pytest.raises(CorpusError, match=error):
        list(read_corpus(path))
    with pytest.raises(CorpusError, match=error):
        embedded.build(read_corpus(path), tmp_path / "index", embedded.Options(workers=1))
    assert not (tmp_path / "index").exists()


BLANK = {True: ["\n", "\r\n"], False: ["\n", "\r\n", " \n", "\u3000\n"]}
"""Lines each reader skips: csv's empty rows; JSON lines that strip to nothing."""
RECORD = st.one_of(
    st.integers(0, 3),  # a blank line
    st.lists(st.sampled_from(["a", "é", '"', "\n", "\t", "\r"])).map(lambda s: "a" + "".join(s)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(RECORD, max_size=12), tsv=st.booleans(), rows=st.sampled_from([1, 3, 50]))
def test_a_limit_reads_the_passages_the_first_of_the_stream_are(
    tmp_path_factory, records, tsv, rows
):
    """``limit`` takes the first passages as the stream gives them, blank lines not counted, and
    reads nothing past them (the bad lines there are never met); ``rows`` only cuts chunks."""
    lines = []
    for i, text in enumerate(records):
        if isinstance(text, int):
            lines.append(BLANK[tsv][text % len(BLANK[tsv])])
        elif tsv:
            lines.append(f'{i}\t"{text.replace(chr(34), 2 * chr(34))}"\tT\n')
        else:
            lines.append(json.dumps({"id": f"{i}", "text": text}) + "\n")
    lines.append("bad\tline\n" if tsv else "{bad\n")
    path = tmp_path_factory.mktemp("c") / ("c.tsv" if tsv else "c.jsonl")
    content = ("id\ttext\ttitle\n" if tsv else "") + "".join(lines)
    path.write_text(content, newline="")
    every = []
    with pytest.raises(CorpusError, match=rf":{content.count(chr(10))}: "):  # the bad last line
        every.extend((p.id, p.text) for p in read_corpus(path, "tsv" if tsv else "jsonl"))
    for limit in range(1, len(every) + 1):
        corpus = read_corpus(path, "tsv" if tsv else "jsonl", limit=limit)
        assert [(p.id, p.text) for p in corpus] == every[:limit]
        read = [row for chunk in corpus.chunks(rows) for row in chunk.rows()]
        assert [(r[1], r[3]) for r in read] == every[:limit]


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "3"])
def test_a_limit_is_a_whole_number_of_passages(tmp_path, limit):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "1", "text": "x"}\n')
    with pytest.raises(CorpusError, match="limit must be a whole number of passages, 1 or more"):
        read_corpus(path, limit=limit)


@given(st.lists(st.text(max_size=8), max_size=20))
def test_a_chunks_ids_hash_as_each_id_alone_does(ids):
    """Hashed in one call, end to end, each id hashes as it does alone: ids that differ only
    where one ends and the next begins ("ab", "c" against "a", "bc") are told apart."""
    alone = [int(rowscan.id_hashes([i])[0]) for i in ids]
    assert rowscan.id_hashes(ids).tolist() == alone
    assert len(set(alone)) == len(set(ids))  # no collision among so few


@pytest.mark.parametrize("rows", [0, -1, 1.5, True, "3"])
def test_a_chunks_rows_are_a_whole_number(tmp_path, rows):
    """Not a chunk of the whole file for a count below one, nor a default for 0."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "1", "text": "x"}\n')
    with pytest.raises(ValueError, match="rows must be a whole number, 1 or more"):
        next(read_corpus(path).chunks(rows))


def rows_end_by_byte(data: bytes, start: int, tsv: bool, rows: int) -> tuple[int, int, int]:
    """csv's record ends found one byte at a time: what :func:`rowscan.rows_end` must find."""
    state, end, found, blank, first, empty = "start", start, 0, 0, True, False
    for i in range(start, len(data)):
        c = data[i : i + 1]
        if not tsv:
            if c == b"\n":
                end, found = i + 1, found + 1
                if found == rows:
                    break
            continue
        if first:
            empty, first = c in (b"\n", b"\r"), False
        if state == "quoted":
            state = "quote in quoted" if c == b'"' else state
        elif c == b"\n":
            state, first, end, found, blank = "start", True, i + 1, found + 1, blank + empty
            if found == rows:
                break
        elif state == "eat":
            pass
        elif c == b"\r":
            state = "eat"
        elif c == b"\t":
            state = "start"
        elif state == "quote in quoted":
            state = "quoted" if c == b'"' else "field"
        else:
            state = "quoted" if c == b'"' and state == "start" else "field"
    return end, found, blank


@settings(max_examples=500, deadline=None)
@given(
    body=st.lists(
        st.sampled_from([*PIECES, b"abcdefgh", b"ijklmnopqrstu", b"\tvwxyz0123"]), max_size=80
    ).map(b"".join),
    data=st.data(),
    tsv=st.booleans(),
    rows=st.sampled_from([1, 2, 3, 1000]),
)
def test_records_end_where_a_scan_byte_by_byte_ends_them(body, data, tsv, rows):
    """Eight bytes passed over at once, from any start (so at every alignment), end the same
    records, and count the same blank ones, as the states taken one byte at a time."""
    start = data.draw(st.integers(0, len(body)))
    found = rowscan.rows_end(np.frombuffer(body, np.uint8), start, tsv, rows)
    assert tuple(found) == rows_end_by_byte(body, start, tsv, rows)


@pytest.mark.parametrize("shift", range(16))
def test_a_long_record_after_a_blank_line_is_not_blank(shift):
    body = b"x" * shift + b"\n\n" + b"a" * 40 + b"\tb\n" + b"\n" + b"c" * 9 + b"\n"
    blank = 2 + (shift == 0)  # with nothing before it, the first line end is a blank record
    assert rowscan.rows_end(np.frombuffer(body, np.uint8), 0, True, 1000) == (len(body), 5, blank)


@pytest.mark.parametrize("shift", range(16))
def test_a_quote_after_a_tab_opens_a_quoted_field_wherever_the_tab_falls(shift):
    """The tab ending eight bytes passed over at once leaves the next byte at a field's start."""
    body = b"a" * shift + b"bcdefgh\t" + b'"one\nrecord"\tz\n' + b"next\t\n"
    assert rowscan.rows_end(np.frombuffer(body, np.uint8), 0, True, 1) == (len(body) - 6, 1, 0)
