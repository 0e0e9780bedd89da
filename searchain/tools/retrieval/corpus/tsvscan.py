"""A TSV chunk's records parsed in compiled code, exactly as ``csv`` reads them, or not at all.

A build worker spent about 4.5 µs a passage at 1M in ``csv``'s reader, the row checks and the
tuples it hands on, then joined the fields again and encoded them as code points for the word
scan. Here the chunk's bytes become those code points directly: fields cut by ``csv``'s states
(a quote opens a quoted field only at a field's start; ``""`` inside one is a quote; a quote
that ends one followed by anything but a tab or a line end carries on unquoted), UTF-8 decoded
as strictly as Python decodes it. A chunk this does not read as the readers would without
question — a byte that is not UTF-8, a carriage return or NUL, a row of the wrong width, an
empty id or text, a last line without its newline — is left to them (``ok`` False): they read
it, or name the line that is wrong, in their own words.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from searchain.tools.retrieval.corpus.fnv import fnv1a

_START, _FIELD, _QUOTED, _QUOTE_IN_QUOTED = 0, 1, 2, 3
_TAB, _NEWLINE, _RETURN, _QUOTE, _SPACE = 9, 10, 13, 34, 32


@numba.njit(cache=True, nogil=True)
def is_space(c: int) -> bool:
    """Whether ``str.isspace`` holds for code point ``c`` (what ``str.strip`` removes)."""
    if c < 128:
        return 9 <= c <= 13 or 28 <= c <= 32
    return (
        c == 0x85
        or c == 0xA0
        or c == 0x1680
        or 0x2000 <= c <= 0x200A
        or c == 0x2028
        or c == 0x2029
        or c == 0x202F
        or c == 0x205F
        or c == 0x3000
    )


@numba.njit(cache=True, nogil=True)
def _sequence(data: np.ndarray, i: int, stop: int) -> tuple[np.uint32, int]:
    """``(code point, bytes)`` of the UTF-8 sequence at ``data[i]``.

    0 bytes for one that Python's strict decoder refuses: a stray byte, an overlong form, a
    surrogate, one cut short or past U+10FFFF.
    """
    b = np.uint32(data[i])
    if b < 0x80:
        return b, 1
    if 0xC2 <= b <= 0xDF:
        size, low, high, c = 2, 0x80, 0xBF, b & 0x1F
    elif 0xE0 <= b <= 0xEF:
        size, c = 3, b & 0x0F
        low = 0xA0 if b == 0xE0 else 0x80
        high = 0x9F if b == 0xED else 0xBF
    elif 0xF0 <= b <= 0xF4:
        size, c = 4, b & 0x07
        low = 0x90 if b == 0xF0 else 0x80
        high = 0x8F if b == 0xF4 else 0xBF
    else:
        return b, 0
    if i + size > stop or not low <= data[i + 1] <= high:
        return b, 0
    c = (c << 6) | (np.uint32(data[i + 1]) & 0x3F)
    for k in range(i + 2, i + size):
        if not 0x80 <= data[k] <= 0xBF:
            return b, 0
        c = (c << 6) | (np.uint32(data[k]) & 0x3F)
    return c, size


@numba.njit(cache=True, nogil=True)
def _readable(data: np.ndarray) -> tuple[bool, int]:
    """``(UTF-8 without a carriage return or NUL, lines)``: ``csv`` reads nothing else as is."""
    n, i, lines = len(data), 0, 0
    while i < n:
        c = data[i]
        if c < 0x80:
            if c == _RETURN or c == 0:
                return False, lines
            lines += c == _NEWLINE
            i += 1
            continue
        _, size = _sequence(data, i, n)
        if size == 0:
            return False, lines
        i += size
    return True, lines


@numba.njit(cache=True, nogil=True)
def _decode(data: np.ndarray, start: int, stop: int, out: np.ndarray, at: int) -> int:
    """``data[start:stop]`` (valid UTF-8) decoded into ``out`` from ``at``; where it ends."""
    i = start
    while i < stop:
        if data[i] < 0x80:
            out[at] = data[i]
            i += 1
        else:
            out[at], size = _sequence(data, i, stop)
            i += size
        at += 1
    return at


@numba.njit(cache=True, nogil=True)
def _row(
    field: np.ndarray,
    cuts: np.ndarray,
    columns: np.ndarray,
    texts: np.ndarray,
    t_at: int,
    ids: np.ndarray,
    i_at: int,
) -> tuple[int, int, int]:
    """A row's fields decoded into ``texts`` (title, a space, text) and ``ids``.

    The fields are ``field``'s bytes, cut at ``cuts``. Returns ``(title length, t_at, i_at)``
    after them; a title length of -1 for a row to leave to the readers.
    """
    id_col, title_col, text_col = columns[1], columns[2], columns[3]
    start = i_at
    i_at = _decode(field, cuts[id_col], cuts[id_col + 1], ids, i_at)
    if i_at == start:  # an empty id
        return -1, t_at, i_at
    title = 0
    if title_col >= 0:
        begin = t_at
        t_at = _decode(field, cuts[title_col], cuts[title_col + 1], texts, t_at)
        title = t_at - begin
    texts[t_at] = _SPACE
    t_at += 1
    begin = t_at
    t_at = _decode(field, cuts[text_col], cuts[text_col + 1], texts, t_at)
    blank = True
    for k in range(begin, t_at):
        if not is_space(texts[k]):
            blank = False
            break
    if blank:  # an empty text: refused in the readers' words
        return -1, t_at, i_at
    return title, t_at, i_at


@numba.njit(cache=True, nogil=True)
def _parse(data: np.ndarray, columns: np.ndarray, first_line: int) -> tuple:
    """``(ok, *Parsed)`` of a chunk's records; not ``ok`` (nothing else) to leave to ``csv``.

    ``columns`` is ``(width, id, title or -1, text)``.
    """
    n = len(data)
    none, no_points = np.empty(0, np.int64), np.empty(0, np.uint32)
    fail = (False, no_points, none, none, no_points, none, np.empty(0, np.uint64), none)
    if n == 0 or data[n - 1] != _NEWLINE:
        return fail
    readable, rows = _readable(data)  # the whole chunk: csv decodes every column
    if not readable:
        return fail
    width = columns[0]
    texts = np.empty(n + 2 * rows, np.uint32)
    ids = np.empty(n + rows, np.uint32)
    text_ends = np.empty(rows, np.int64)
    id_ends = np.empty(rows, np.int64)
    titles = np.empty(rows, np.int64)
    lines = np.empty(rows, np.int64)
    field = np.empty(n, np.uint8)
    cuts = np.empty(width + 1, np.int64)
    t_at = i_at = count = fields = f_at = 0
    line = first_line - 1
    state = _START
    record_start = True
    for i in range(n):
        c = data[i]
        if state == _QUOTED:
            if c == _QUOTE:
                state = _QUOTE_IN_QUOTED
            else:
                line += c == _NEWLINE
                field[f_at] = c
                f_at += 1
            continue
        if c == _NEWLINE:
            line += 1
            if record_start:  # a blank line: csv's empty row, skipped
                continue
            if fields >= width:
                return fail
            cuts[fields + 1] = f_at
            fields += 1
            if fields != width:
                return fail
            title, t_at, i_at = _row(field, cuts, columns, texts, t_at, ids, i_at)
            if title < 0:
                return fail
            titles[count], text_ends[count], id_ends[count] = title, t_at, i_at
            lines[count] = line
            texts[t_at] = 0
            ids[i_at] = 0
            t_at += 1
            i_at += 1
            count += 1
            fields = f_at = 0
            cuts[0] = 0
            state, record_start = _START, True
            continue
        if record_start:
            cuts[0] = 0
            record_start = False
        if c == _TAB:
            if fields >= width:
                return fail
            cuts[fields + 1] = f_at
            fields += 1
            state = _START
        elif state == _START and c == _QUOTE:
            state = _QUOTED
        elif state == _QUOTE_IN_QUOTED and c == _QUOTE:
            field[f_at] = c
            f_at += 1
            state = _QUOTED
        else:
            field[f_at] = c
            f_at += 1
            state = _FIELD
    if state != _START or not record_start:
        return fail
    hashes = np.empty(count, np.uint64)
    for r in range(count):
        hashes[r] = fnv1a(ids, id_ends[r - 1] + 1 if r else 0, id_ends[r])
    last_text = text_ends[count - 1] if count else 0
    last_id = id_ends[count - 1] if count else 0
    return (
        True,
        texts[:last_text],
        text_ends[:count],
        titles[:count],
        ids[:last_id],
        id_ends[:count],
        hashes,
        lines[:count],
    )


class Parsed(NamedTuple):
    """A chunk's records as a build's encoder takes them (see :class:`.encode.Texts`)."""

    texts: np.ndarray
    """Each record's title, a space and its text, as code points, a separator between records."""
    text_ends: np.ndarray
    """Where each record's ends in :attr:`texts`."""
    titles: np.ndarray
    """Each title's length in code points."""
    ids: np.ndarray
    """Each record's id, as code points, a separator between them."""
    id_ends: np.ndarray
    """Where each id ends in :attr:`ids`."""
    table: np.ndarray
    """The ids' hashes (FNV-1a, as :func:`.scan.rowscan.id_hashes`) and the number of each record's
    last line: :meth:`.Chunk.records`'s ``ids``."""


def parse_tsv(
    data: bytes, columns: tuple[int, int, int | None, int], first_line: int
) -> Parsed | None:
    """The records of a TSV chunk, or None for a chunk to leave to ``csv`` (see the module).

    ``columns``: how many, and which the id, the title (None: none) and the text; ``data``'s
    first line is numbered ``first_line``.
    """
    width, id_column, title, text = columns
    layout = np.array([width, id_column, -1 if title is None else title, text], np.int64)
    ok, texts, text_ends, titles, ids, id_ends, hashes, lines = _parse(
        np.frombuffer(data, np.uint8), layout, first_line
    )
    if not ok:
        return None
    return Parsed(texts, text_ends, titles, ids, id_ends, np.stack([hashes.view(np.int64), lines]))
