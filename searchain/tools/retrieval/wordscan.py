r"""A batch's words found and numbered in compiled code, exactly as the tokenizer's regexes do.

Python's ``re.findall`` costs about 0.4 µs a word — 40 µs for a 100-word passage, most of a
build's time — and numbering the words costs a dictionary lookup each. Here a batch of
passages is lower-cased by Python (``str.lower``, whose Unicode rules stay Python's), laid end
to end as UTF-32 code points, and scanned by numba: word characters are those ``re`` calls
``\w`` (``str.isalnum()`` or ``_``) and digits those it calls ``\d`` (``str.isdecimal()``),
read from a table of every code point built with those very methods, so the words found are
the regexes' words (a property test holds the two together on arbitrary text). Each word is
then numbered by an open-addressing hash table over its code points, in order of first
appearance, and only a batch's distinct words come back to Python as strings.

* ``stem``'s words: ``(?u)\b\w\w+\b`` — runs of word characters, two or more long.
* ``standard``'s: ``\w+(?:(?:[.'`’]|(?<=\d)[,.](?=\d))\w+)*`` — runs of word characters
  joined by ``. ' ` ’`` followed by a word character, or by ``,`` between two digits.
"""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

WORD, DIGIT, JOINER = 1, 2, 4
"""Bits of :func:`character_classes`."""
SEPARATOR = "\x00"
"""Put between passages: neither a word character nor a joiner, so no word spans two."""


@lru_cache(maxsize=1)
def character_classes() -> np.ndarray:
    r"""One byte per code point: its classes as ``re`` sees them.

    ``WORD`` as ``\w``, ``DIGIT`` as ``\d``, ``JOINER`` for ``standard``'s ``. ' ` ’`` (``,``
    is told apart in the kernel).
    """
    classes = np.zeros(0x110000, np.uint8)
    for code in range(0x110000):
        char = chr(code)
        if char.isalnum() or char == "_":
            classes[code] = WORD | (DIGIT if char.isdecimal() else 0)
    for char in ".'`’":
        classes[ord(char)] |= JOINER
    return classes


@numba.njit(cache=True, nogil=True)
def word_spans(
    text: np.ndarray, classes: np.ndarray, standard: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, stops)`` of each word of ``text`` (code points), in order."""
    n = len(text)
    starts = np.empty(n // 2 + 1, np.int64)
    stops = np.empty(n // 2 + 1, np.int64)
    count = 0
    i = 0
    while i < n:
        if not classes[text[i]] & WORD:
            i += 1
            continue
        start = i
        while i < n and classes[text[i]] & WORD:
            i += 1
        if standard:
            while i + 1 < n and classes[text[i + 1]] & WORD:
                joiner = classes[text[i]] & JOINER
                comma = text[i] == 44 and classes[text[i - 1]] & DIGIT
                if not (joiner or (comma and classes[text[i + 1]] & DIGIT)):
                    break
                i += 1
                while i < n and classes[text[i]] & WORD:
                    i += 1
        elif i - start < 2:
            continue
        starts[count] = start
        stops[count] = i
        count += 1
    return starts[:count], stops[:count]


@numba.njit(cache=True, nogil=True)
def number_words(
    text: np.ndarray, starts: np.ndarray, stops: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Number the words: ``(ids, first)``.

    Each word's id, numbered from 0 in order of first appearance, and the position (in
    ``starts``) of each id's first occurrence.
    """
    n = len(starts)
    size = 2
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, np.int64)
    ids = np.empty(n, np.int32)
    first = np.empty(n, np.int64)
    distinct = 0
    for w in range(n):
        start, stop = starts[w], stops[w]
        h = np.uint64(14695981039346656037)  # FNV-1a over the code points
        for k in range(start, stop):
            h = (h ^ np.uint64(text[k])) * np.uint64(1099511628211)
        slot = np.int64(h & np.uint64(mask))
        while True:
            seen = table[slot]
            if seen < 0:
                table[slot] = distinct
                first[distinct] = w
                ids[w] = distinct
                distinct += 1
                break
            other = first[seen]
            length = stop - start
            if stops[other] - starts[other] == length:
                k = 0
                while k < length and text[starts[other] + k] == text[start + k]:
                    k += 1
                if k == length:
                    ids[w] = seen
                    break
            slot = (slot + 1) & mask
    return ids, first[:distinct]
