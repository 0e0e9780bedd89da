r"""Where a corpus's records end, found in its bytes by compiled code, exactly as the readers do.

A build hands the corpus to its worker processes as raw bytes, cut into runs of whole records
that the workers decode and parse (:class:`.corpus_rows.Chunk`); the coordinating process only
finds the cuts. A JSON-lines record is a line (Python's file iteration ends a line at ``\n`` and
nowhere else). A TSV record is what Python's ``csv`` reader (tab-delimited, ``"`` quoting,
doubled quotes) reads as one row: a line, or more than one where a quoted field holds a newline.
The scan follows ``csv``'s states byte by byte (a quote opens a quoted field only at a field's
start; ``""`` inside one is a quote; a quote that ends it followed by anything but a tab or a line
end carries on unquoted), so a run never ends inside a quoted field. Bytes that ``csv`` refuses (a
carriage return inside an unquoted field) are left to it: the run that holds them is parsed
whole, and the error names their line as the reader in one process names it.
"""

from __future__ import annotations

import numba
import numpy as np

from searchain.tools.retrieval.corpus.fnv import fnv1a

_START, _FIELD, _QUOTED, _QUOTE_IN_QUOTED, _EAT = 0, 1, 2, 3, 4
"""The scan's states: a field's start, in an unquoted field, in a quoted one, just after a quote
in a quoted one, past a carriage return (the rest of the line, which ``csv`` refuses)."""
_TAB, _NEWLINE, _RETURN, _QUOTE = 9, 10, 13, 34


_ONES, _HIGHS = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)


@numba.njit(cache=True, nogil=True, inline="always")
def _has(word: np.uint64, byte: int) -> np.uint64:
    """Non-zero if one of ``word``'s eight bytes is ``byte`` (the classic zero-byte test)."""
    x = word ^ (_ONES * np.uint64(byte))
    return (x - _ONES) & ~x & _HIGHS


@numba.njit(cache=True, nogil=True)
def rows_end(data: np.ndarray, start: int, tsv: bool, rows: int) -> tuple[int, int, int]:
    """``(end, found, blank)``: where the ``rows``-th record from ``start`` ends.

    ``end`` is the offset just past it, or past the last whole record in ``data`` if it holds
    fewer (``found`` of them; ``end`` is ``start`` for none). A blank line counts as a record,
    which the readers skip: ``blank`` of the TSV records found are (``csv``'s empty rows: a
    record that starts with a line end).

    Eight bytes are passed over at once where none of them can change the scan: none a line
    end, and in a TSV none a quote or carriage return (in a quoted field: none a quote; past a
    carriage return: none a line end). A tab among them leaves a field's start if it is the
    last. 0.45 ns a byte of the benchmark corpus, where one byte at a time took 1.5.
    """
    words = data[: len(data) // 8 * 8].view(np.uint64)
    state = _START
    end, found, blank = start, 0, 0
    first = True  # at a record's first byte
    empty = False
    i = start
    while i < len(data):
        if i % 8 == 0 and i + 8 <= len(data):
            word = words[i // 8]
            if not tsv or state == _EAT:
                skip = _has(word, _NEWLINE) == 0
            elif state == _QUOTED:
                skip = _has(word, _QUOTE) == 0
            elif state == _QUOTE_IN_QUOTED:
                skip = False
            else:
                skip = (_has(word, _NEWLINE) | _has(word, _QUOTE) | _has(word, _RETURN)) == 0
            if skip:
                if tsv and state in (_START, _FIELD):
                    state = _START if data[i + 7] == _TAB else _FIELD
                empty = empty and not first  # a record starting here is not blank
                first = False
                i += 8
                continue
        c = data[i]
        i += 1
        if not tsv:
            if c == _NEWLINE:
                end, found = i, found + 1
                if found == rows:
                    break
            continue
        if first:
            empty, first = c in (_NEWLINE, _RETURN), False
        if state == _QUOTED:
            if c == _QUOTE:
                state = _QUOTE_IN_QUOTED
            continue
        if c == _NEWLINE:
            state, first = _START, True
            end, found, blank = i, found + 1, blank + empty
            if found == rows:
                break
        elif state == _EAT:
            continue
        elif c == _RETURN:
            state = _EAT
        elif c == _TAB:
            state = _START
        elif state == _QUOTE_IN_QUOTED:
            state = _QUOTED if c == _QUOTE else _FIELD
        elif c == _QUOTE and state == _START:
            state = _QUOTED
        else:
            state = _FIELD
    return end, found, blank


def id_hashes(ids: list[str]) -> np.ndarray:
    """64-bit hashes of passage ids (uint64), for the corpus's check of repeats.

    FNV-1a over each id's code points, in one compiled call for a chunk's ids: a hash an id
    (blake2b) cost about 4 µs a passage of a build worker's time. A repeat of a hash is only
    a lead: the ids are read back to tell a real repeat from a collision.
    """
    lengths = np.fromiter(map(len, ids), np.int64, len(ids))
    points = np.frombuffer("".join(ids).encode("utf-32-le", "surrogatepass"), np.uint32)
    return _fnv(points, np.cumsum(lengths))


@numba.njit(cache=True, nogil=True)
def _fnv(points: np.ndarray, ends: np.ndarray) -> np.ndarray:
    hashes = np.empty(len(ends), np.uint64)
    start = 0
    for i in range(len(ends)):
        hashes[i] = fnv1a(points, start, ends[i])
        start = ends[i]
    return hashes
