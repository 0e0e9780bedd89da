"""A batch's passages as the passage store's JSON lines, written in compiled code.

Formatting each passage in Python — three ``json`` string escapes, an f-string, a UTF-8 encode —
cost 3.6 µs a passage at 1M, a seventh of a build worker's work. Here the batch's ids, titles
and texts, laid end to end as UTF-32 code points (which the word scan reads anyway), are
escaped and encoded in one compiled pass, byte for byte as ``json.dumps(..., ensure_ascii=False)``
writes them (a property test holds the two together).
"""

from __future__ import annotations

import numba
import numpy as np

from searchain.tools.retrieval.embedded.analysis.wordscan import put_utf8

_HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
_ESCAPES = np.zeros(0x20 + 0x60, np.uint8)
"""The letter after the backslash of a two-character escape, by code point (0: none)."""
for _char, _letter in zip('"\\\b\f\n\r\t', '"\\bfnrt', strict=True):
    _ESCAPES[ord(_char)] = ord(_letter)
_ID = np.frombuffer(b'{"id": "', np.uint8)
_TITLE = np.frombuffer(b'", "title": "', np.uint8)
_TEXT = np.frombuffer(b'", "text": "', np.uint8)
_SOURCE = np.frombuffer(b'", "source": ', np.uint8)
_END = np.frombuffer(b'"}\n', np.uint8)


@numba.njit(cache=True, nogil=True)
def _put(out: np.ndarray, at: int, data: np.ndarray) -> int:
    out[at : at + len(data)] = data
    return at + len(data)


@numba.njit(cache=True, nogil=True)
def _string(
    out: np.ndarray, at: int, text: np.ndarray, start: int, stop: int, bad: np.ndarray
) -> int:
    """``text[start:stop]`` (code points) as a JSON string's inside, UTF-8, written at ``at``.

    Returns where it ends; a lone surrogate (UTF-8 holds none) sets ``bad[0]``.
    """
    for k in range(start, stop):
        c = np.uint32(text[k])
        if c < 0x80:
            if c < len(_ESCAPES) and _ESCAPES[c]:
                out[at] = 92  # a backslash
                out[at + 1] = _ESCAPES[c]
                at += 2
            elif c < 0x20:
                out[at] = 92  # \u00, then two hex digits
                out[at + 1] = 117
                out[at + 2] = 48
                out[at + 3] = 48
                out[at + 4] = _HEX[c >> 4]
                out[at + 5] = _HEX[c & 15]
                at += 6
            else:
                out[at] = c
                at += 1
            continue
        bad[0] |= 0xD800 <= c < 0xE000
        at = put_utf8(out, at, c)
    return at


@numba.njit(cache=True, nogil=True)
def json_lines(
    ids: np.ndarray,
    id_ends: np.ndarray,
    texts: np.ndarray,
    text_ends: np.ndarray,
    title_lengths: np.ndarray,
    sources: np.ndarray,
    source_ends: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(lines, lengths, ok)``: each passage's line, UTF-8, end to end, and its bytes.

    Passage ``p``'s id is ``ids[id_ends[p - 1] + 1 : id_ends[p]]`` (code points, one separator
    between passages; ``id_ends[-1]`` is -1), its title and text ``texts`` between its ends in
    the same way, a space between them, the title ``title_lengths[p]`` long; its source, already
    JSON, the bytes of ``sources`` between ``source_ends`` (none where empty). ``ok`` is False,
    and nothing returned, if a code point is a lone surrogate, which UTF-8 cannot hold.
    """
    n = len(title_lengths)
    # At most 6 bytes a code point (an escape, \u001f), and the fixed parts of each line.
    out = np.empty(6 * (len(ids) + len(texts)) + len(sources) + 64 * n, np.uint8)
    lengths = np.empty(n, np.int64)
    bad = np.zeros(1, np.bool_)
    at = 0
    for p in range(n):
        begin = at
        start = text_ends[p - 1] + 1 if p else 0
        title_end = start + title_lengths[p]
        at = _put(out, at, _ID)
        at = _string(out, at, ids, id_ends[p - 1] + 1 if p else 0, id_ends[p], bad)
        at = _put(out, at, _TITLE)
        at = _string(out, at, texts, start, title_end, bad)
        at = _put(out, at, _TEXT)
        at = _string(out, at, texts, title_end + 1, text_ends[p], bad)
        if bad[0]:
            return out[:0], lengths[:0], False
        low, high = source_ends[p], source_ends[p + 1]
        if high > low:
            at = _put(out, at, _SOURCE)
            at = _put(out, at, sources[low:high])
            out[at] = 125  # }
            out[at + 1] = 10
            at += 2
        else:
            at = _put(out, at, _END)
        lengths[p] = at - begin
    return out[:at], lengths, True
