r"""A batch's words found and numbered in compiled code, exactly as the tokenizer's regexes do.

Python's ``re.findall`` costs about 0.4 µs a word — 40 µs for a 100-word passage, most of a
build's time — and numbering the words costs a dictionary lookup each. Here a batch of
passages is laid end to end as UTF-32 code points, lower-cased by a table that ``str.lower``
made of every code point (:func:`lower_case`; the texts holding a Σ, whose σ or ς the letters
around it decide, by ``str.lower`` itself: 3 ns a character where the table takes 0.8), and
scanned by numba: word characters are those ``re`` calls
``\w`` (``str.isalnum()`` or ``_``) and digits those it calls ``\d`` (``str.isdecimal()``),
read from a table of every code point built with those very methods, so the words found are
the regexes' words (a property test holds the two together on arbitrary text). Each word is
then numbered by an open-addressing hash table over its code points (:class:`WordTable`), in
order of first appearance, kept from batch to batch: only words the table has not met before
come back to Python as strings.

* ``stem``'s words: ``(?u)\b\w\w+\b`` — runs of word characters, two or more long.
* ``standard``'s: ``\w+(?:(?:[.'`’]|(?<=\d)[,.](?=\d))\w+)*`` — runs of word characters
  joined by ``. ' ` ’`` followed by a word character, or by ``,`` between two digits.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

import numba
import numpy as np

from searchain.tools.retrieval.corpus.fnv import fnv1a
from searchain.tools.retrieval.embedded.analysis.prefetch import prefetch
from searchain.tools.retrieval.embedded.termdict.vocabulary import Terms

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
    every = np.arange(0x110000, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    classes = _matching(r"\w", every) * np.uint8(WORD) | _matching(r"\d", every) * np.uint8(DIGIT)
    for char in ".'`’":
        classes[ord(char)] |= JOINER
    return classes


def _matching(pattern: str, text: str) -> np.ndarray:
    """Whether each character of ``text`` matches ``pattern``, a class of one character.

    Two substitutions in ``re``'s compiled code, not a Python call a code point: a code point
    table took seconds of every build process's start (``chr`` and ``str.isalnum`` 1.1M times).
    The characters that do not match become NUL first, so the matching ones are all that is
    left to become 1 (NUL and 1 match neither class).
    """
    outside = re.sub(pattern.swapcase(), "\x00", text)  # \W for \w, \D for \d
    marked = re.sub(pattern, "\x01", outside)
    return np.frombuffer(marked.encode("utf-32-le", "surrogatepass"), np.uint32) == 1


CAPITAL_I_DOT, CAPITAL_SIGMA = 0x130, 0x3A3
"""The two code points whose lower case ``str.lower`` does not give alone: İ lowers to two (i
and a combining dot above); Σ to σ, or to ς ending a word, which the letters around it say."""


@lru_cache(maxsize=1)
def lower_case() -> np.ndarray:
    """Each code point's lower case as ``str.lower`` gives it, where it is one code point.

    One ``str.lower`` of every code point at once; İ (taken out first: it would shift the rest)
    and Σ are left as they are, for :func:`lowered`.
    """
    every = np.arange(0x110000, dtype=np.uint32)
    every[CAPITAL_I_DOT] = 0
    text = every.tobytes().decode("utf-32-le", "surrogatepass")
    table = np.frombuffer(text.lower().encode("utf-32-le", "surrogatepass"), np.uint32).copy()
    table[[CAPITAL_I_DOT, CAPITAL_SIGMA]] = [CAPITAL_I_DOT, CAPITAL_SIGMA]
    return table


@numba.njit(cache=True, nogil=True)
def lowered(
    text: np.ndarray, table: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, lower_ends, sigmas)``: ``text`` lowered as ``str.lower`` lowers it, but Σ.

    ``text`` holds texts (code points) ending at ``ends``, a separator after each but the last.
    ``lower_ends`` are their ends in ``lower``: an İ becomes two code points there. A Σ is left
    as it is: only ``str.lower`` knows the letters around it that make it σ or ς, so the caller
    lowers the texts that ``sigmas`` marks with it.
    """
    extra = 0
    for c in text:
        extra += c == CAPITAL_I_DOT
    lower = np.empty(len(text) + extra, np.uint32)
    lower_ends = np.empty(len(ends), np.int64)
    sigmas = np.zeros(len(ends), np.bool_)
    j = 0
    for p in range(len(ends)):
        for k in range(ends[p - 1] + 1 if p else 0, ends[p]):
            c = text[k]
            if c < 128:
                lower[j] = c + 32 if 65 <= c <= 90 else c
            elif c == CAPITAL_I_DOT:
                lower[j] = 0x69
                j += 1
                lower[j] = 0x307
            else:
                lower[j] = table[c]
                sigmas[p] |= c == CAPITAL_SIGMA
            j += 1
        lower_ends[p] = j
        if ends[p] < len(text):
            lower[j] = text[ends[p]]
            j += 1
    return lower, lower_ends, sigmas


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


AHEAD = 16
"""Words ahead of the one being numbered whose hash slot is fetched into the cache; the entry
that slot names is fetched for the word ``AHEAD // 2`` ahead, and its code points for the word
``AHEAD // 4`` ahead, each from what was fetched before. At 1M passages the table, offsets and
code points far exceed the cache, and a word looked up alone waited on those three misses in
turn: 65-100 ns a word, 44-56 ns fetched ahead (400 batches, beside a build on the other core;
8 or 24 ahead did no better)."""


@numba.njit(cache=True, nogil=True, inline="always")
def _fetch_ahead(
    table: np.ndarray, offsets: np.ndarray, chars: np.ndarray, slots: np.ndarray, w: int
) -> None:
    """Prefetch what the words after word ``w`` will look up (hints: nothing read is used)."""
    n = len(slots)
    if w + AHEAD < n:
        prefetch(table, slots[w + AHEAD])
    if w + AHEAD // 2 < n:
        seen = table[slots[w + AHEAD // 2]]
        if seen >= 0:
            prefetch(offsets, seen)
    if w + AHEAD // 4 < n:
        seen = table[slots[w + AHEAD // 4]]
        if seen >= 0:
            prefetch(chars, offsets[seen])


@numba.njit(cache=True, nogil=True)
def _intern(
    text: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    table: np.ndarray,
    chars: np.ndarray,
    offsets: np.ndarray,
    known: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Number each word by the table, adding the words it lacks: ``(ids, new, known)``.

    ``new`` holds, for each word added, the position of its first occurrence; the caller has
    made room in every array for all of the batch's words being new.
    """
    mask = len(table) - 1
    n = len(starts)
    slots = np.empty(n, np.int64)
    for w in range(n):
        slots[w] = np.int64(fnv1a(text, starts[w], stops[w]) & np.uint64(mask))
    ids = np.empty(n, np.int32)
    new = np.empty(n, np.int64)
    added = 0
    for w in range(n):
        _fetch_ahead(table, offsets, chars, slots, w)
        start, stop = starts[w], stops[w]
        length = stop - start
        slot = slots[w]
        while True:
            seen = table[slot]
            if seen < 0:  # a word not met before: store its code points
                table[slot] = known
                at = offsets[known]
                chars[at : at + length] = text[start:stop]
                offsets[known + 1] = at + length
                ids[w] = known
                new[added] = w
                added += 1
                known += 1
                break
            at = offsets[seen]
            if offsets[seen + 1] - at == length:
                k = 0
                while k < length and chars[at + k] == text[start + k]:
                    k += 1
                if k == length:
                    ids[w] = seen
                    break
            slot = (slot + 1) & mask
    return ids, new[:added], known


@numba.njit(cache=True, nogil=True)
def _rehash(chars: np.ndarray, offsets: np.ndarray, known: int, size: int) -> np.ndarray:
    """A table of ``size`` slots holding the ``known`` words."""
    table = np.full(size, -1, np.int32)
    mask = size - 1
    for word in range(known):
        slot = np.int64(fnv1a(chars, offsets[word], offsets[word + 1]) & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = word
    return table


@numba.njit(cache=True, nogil=True)
def _utf8(chars: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The words ``chars[offsets[i]:offsets[i + 1]]`` (code points) as UTF-8: bytes, ends."""
    ends = np.zeros(len(offsets), np.int64)
    for w in range(len(offsets) - 1):
        size = 0
        for k in range(offsets[w], offsets[w + 1]):
            c = chars[k]
            size += 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
        ends[w + 1] = ends[w] + size
    data = np.empty(ends[-1], np.uint8)
    at = 0
    for k in range(offsets[-1]):
        at = put_utf8(data, at, np.uint32(chars[k]))
    return data, ends


@numba.njit(cache=True, nogil=True)
def put_utf8(out: np.ndarray, at: int, c: np.uint32) -> int:
    """Code point ``c`` written at ``out[at]`` as UTF-8; where it ends.

    A surrogate is written as Python's ``surrogatepass`` writes it.
    """
    if c < 0x80:
        out[at] = c
        return at + 1
    if c < 0x800:
        out[at] = 0xC0 | (c >> 6)
        at += 1
    elif c < 0x10000:
        out[at] = 0xE0 | (c >> 12)
        out[at + 1] = 0x80 | ((c >> 6) & 0x3F)
        at += 2
    else:
        out[at] = 0xF0 | (c >> 18)
        out[at + 1] = 0x80 | ((c >> 12) & 0x3F)
        out[at + 2] = 0x80 | ((c >> 6) & 0x3F)
        at += 3
    out[at] = 0x80 | (c & 0x3F)
    return at + 1


MAX_WORDS = np.iinfo(np.int32).max
"""Words a table numbers at most: ids are int32, and so are its slots (4 bytes a slot, not 8:
16 MB less at 1M passages' 1.75M words, in every build process)."""


class WordTable:
    """Words met so far, numbered in order of first appearance, looked up in compiled code.

    An open-addressing hash table (at most half full) over each word's code points, which are
    kept end to end (4 bytes a character): numbering a batch's words costs no Python call per
    word, and a word already met costs no string at all.
    """

    def __init__(self) -> None:
        self._table = np.full(1 << 16, -1, np.int32)
        self._chars = np.empty(1 << 20, np.uint32)
        self._offsets = np.zeros(1 << 16, np.int64)
        self.size = 0
        """Words held."""

    def number(
        self, text: np.ndarray, starts: np.ndarray, stops: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, new)``: each word's id, and where (in ``starts``) each word added occurs first.

        The words added are numbered from the old :attr:`size` on, in that order.
        """
        most = self.size + len(starts)
        if most > MAX_WORDS:
            raise ValueError(f"more than {MAX_WORDS:,} distinct words: more than ids can number")
        if 2 * most > len(self._table):
            size = _power_of_two(2 * most)
            self._table = np.empty(0, np.int32)  # let go before the new one is filled
            self._table = _rehash(self._chars, self._offsets, self.size, size)
        if most + 1 > len(self._offsets):
            self._offsets = _grown(self._offsets, most + 1)
        letters = int(self._offsets[self.size] + (stops - starts).sum())
        if letters > len(self._chars):
            self._chars = _grown(self._chars, letters)
        ids, new, self.size = _intern(
            text, starts, stops, self._table, self._chars, self._offsets, self.size
        )
        return ids, new

    def words(self, first: int = 0) -> list[str]:
        """Every word held from number ``first`` on, by number."""
        ends = self._offsets[first : self.size + 1]
        text = self._chars[ends[0] : ends[-1]].tobytes().decode("utf-32-le", "surrogatepass")
        return [text[a:b] for a, b in itertools.pairwise((ends - ends[0]).tolist())]


class TermIds:
    """Terms numbered in order of first appearance, as a build's vocabulary: a :class:`WordTable`.

    The coordinating process of a build holds every term of the corpus. In a Python dict that
    cost about 175 bytes a term (the string, its hash entry, its int): 0.3 GiB at 1M passages'
    1.75M terms, 1.9 GiB at 21M's 11M, most of a build's memory. Here a term costs its code
    points, its offset and a few 4-byte slots, about 40 bytes, and numbering a batch's new terms
    is one compiled call.
    """

    def __init__(self, terms: Sequence[str] = ()) -> None:
        self._table = WordTable()
        self.add(terms)

    def __len__(self) -> int:
        return self._table.size

    def add(self, terms: Sequence[str]) -> np.ndarray:
        """Each term's id (int32): a term not held yet takes the next, in the order given."""
        lengths = np.fromiter(map(len, terms), np.int64, len(terms))
        stops = np.cumsum(lengths)
        text = "".join(terms).encode("utf-32-le", "surrogatepass")
        ids, _ = self._table.number(np.frombuffer(text, np.uint32), stops - lengths, stops)
        return ids

    def terms(self) -> list[str]:
        """Every term, by id."""
        return self._table.words()

    def utf8(self) -> Terms:
        """Every term, by id, as UTF-8 (what the vocabulary's files hold), in compiled code."""
        table = self._table
        return Terms(*_utf8(table._chars, table._offsets[: table.size + 1]))


def _power_of_two(n: int) -> int:
    return 1 << max(16, (n - 1).bit_length())


def _grown(array: np.ndarray, at_least: int) -> np.ndarray:
    """``array`` in a buffer at least twice as large, its items kept."""
    bigger = np.empty(max(at_least, 2 * len(array)), array.dtype)
    bigger[: len(array)] = array
    return bigger
