"""A TSV chunk parsed in compiled code reads as ``csv`` reads it, or is left to ``csv``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.corpus.rows import Chunk, Columns, CorpusError, Layout
from searchain.tools.retrieval.corpus.tsvscan import is_space, parse_tsv

LAYOUTS = [Columns(0, 1, 2, 3), Columns(2, 0, None, 3), Columns(1, 2, 0, 4)]
"""(id, text, title, width): the usual order, no title, a column nobody reads."""
PIECES = [
    *[c.encode() for c in 'aZ9 é€😀"\t\n'],
    *["\u2028", "\xa0", "\x1c", "\u3000", "\x85", "\ufeff"],
    *[b"\r", b"\x00", b"\r\n", b'""', b'"\t', b'"\n'],
    # Not UTF-8: a stray byte, overlong slashes (2, 3, 4 bytes), a surrogate, a cut sequence,
    # past U+10FFFF; and UTF-8 at those edges: U+D7FF, U+E000, U+10FFFF, U+0800, U+10000.
    *[b"\xff", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xed\xa0\x80"],
    *[b"\xe2\x82", b"\xf4\x90\x80\x80", b"\x80"],
    *[b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80"],
]
PIECES = [p.encode() if isinstance(p, str) else p for p in PIECES]


def chunk(data: bytes, columns: Columns, number: int = 5) -> Chunk:
    return Chunk(Layout(Path("c.tsv"), "tsv", columns), number, data)


def split(points: np.ndarray, ends: np.ndarray) -> list[str]:
    """The texts ``points`` holds, ending at ``ends``, one separator between each."""
    starts = [0, *(ends[:-1] + 1).tolist()][: len(ends)]
    text = points.tobytes().decode("utf-32-le", "surrogatepass")
    return [text[a:b] for a, b in zip(starts, ends.tolist(), strict=True)]


def check(data: bytes, columns: Columns) -> bool:
    """Whether ``parse_tsv`` read ``data`` (asserting it read it as ``csv`` does)."""
    where = (columns.width, columns.id, columns.title, columns.text)
    parsed = parse_tsv(data, where, 5)
    try:
        records, ids = chunk(data, columns).records()
    except CorpusError:
        assert parsed is None  # the readers name what is wrong
        return False
    if parsed is None:
        return False
    assert split(parsed.texts, parsed.text_ends) == [f"{t} {x}" for _, t, x, _ in records]
    assert split(parsed.ids, parsed.id_ends) == [i for i, _, _, _ in records]
    assert parsed.titles.tolist() == [len(t) for _, t, _, _ in records]
    assert np.array_equal(parsed.table, ids)  # the ids' hashes and line numbers
    return True


@pytest.mark.parametrize("columns", LAYOUTS)
@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=60), newline=st.booleans())
def test_any_bytes_are_read_as_csv_reads_them_or_left_to_it(columns, pieces, newline):
    """Quotes anywhere, tabs and newlines in and out of them, blank lines, rows too short or
    long, bytes that are not UTF-8, carriage returns, NUL, an empty id or text, no last
    newline: what the compiled parser reads equals csv's rows, and it refuses all csv refuses."""
    check(b"".join(pieces) + (b"\n" if newline else b""), columns)


inside = st.lists(st.sampled_from([p for p in PIECES if p not in (b"\t", b"\n")]), max_size=5)


@pytest.mark.parametrize("columns", LAYOUTS)
@settings(max_examples=400, deadline=None)
@given(rows=st.lists(st.lists(inside.map(b"".join), min_size=4, max_size=4), max_size=4))
def test_rows_of_any_bytes_are_read_as_csv_reads_them_or_left_to_it(columns, rows):
    """Rows of the header's width, their fields of any bytes (quotes, carriage returns, NUL,
    what is not UTF-8 and what just is): read as csv reads them, or left to it."""
    check(b"".join(b"\t".join(row[: columns.width]) + b"\n" for row in rows), columns)


field = st.text(st.sampled_from(list('ab é€😀"\t\n \xa0')), max_size=8)


@pytest.mark.parametrize("columns", LAYOUTS)
@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(field, min_size=4, max_size=4), min_size=1, max_size=6))
def test_rows_csv_writes_are_read_here(columns, rows):
    """What ``csv`` writes (quoting fields with tabs, newlines and quotes) is read here, not left
    to it, whenever each row has an id and a text."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerows(row[: columns.width] for row in rows)
    readable = all(row[columns.id] and row[columns.text].strip() for row in rows)
    assert check(out.getvalue().encode(), columns) == readable


def test_line_numbers_count_the_lines_of_quoted_fields_and_blank_lines():
    data = b'a\t"two\nlines"\tT\n\nb\ttext\tT\n'
    parsed = parse_tsv(data, (3, 0, 2, 1), 10)
    assert parsed is not None and parsed.table[1].tolist() == [11, 13]


def test_every_code_points_space_is_str_isspace():
    """``str.strip`` removes what ``str.isspace`` holds for: an all-space text is refused."""
    spaces = [c for c in range(0x110000) if chr(c).isspace()]
    assert [c for c in range(0x110000) if is_space(c)] == spaces


@pytest.mark.parametrize("quoted", [False, True])
@pytest.mark.parametrize("column", [0, 1, 2], ids=["id", "text", "unread"])
@pytest.mark.parametrize("piece", PIECES)
def test_each_piece_in_each_field_is_read_as_csv_reads_it(piece, column, quoted):
    """Every piece (each edge of UTF-8, a carriage return, NUL, quotes) in each kind of field,
    quoted or not: read as csv reads it, and left to csv only where csv refuses the row or a
    carriage return or NUL is in it."""
    fields = [b"id7", b"some text", b"unread"]
    fields[column] = b'"x' + piece + b'y"' if quoted else b"x" + piece + b"y"
    data = b"\t".join(fields) + b"\n"
    columns = Columns(0, 1, None, 3)
    try:
        chunk(data, columns).records()
        readable = b"\r" not in data and b"\x00" not in data
    except CorpusError:
        readable = False
    assert check(data, columns) == readable
