"""The index's vocabulary on disk, mapped rather than parsed: term → column in microseconds.

Parsing ``vocab.index.json`` into a dict took most of an open's time and of a process's
private memory, and grew with the corpus. Here the terms are a table sorted by a
64-bit hash of each term (BLAKE2b, stable across processes and machines), with each term's
column and its UTF-8 bytes: opening maps four files; a lookup hashes the term, finds its hash by
binary search in the mapped table (about 25 page touches at 21M terms) and compares the stored
bytes, so a term the index lacks is never found even when its hash collides. No dependency: a
trie or FST library from PyPI would be smaller on disk, but a sorted hash table is a few NumPy
lines, exact, and as fast for the whole-term lookups BM25 needs (no prefix queries).

Files (beside the postings): ``vocab.hash.npy`` (uint64, ascending), ``vocab.column.npy`` (int32,
the term id of each), ``vocab.offsets.npy`` (n + 1: uint32 where the terms' bytes fit, else
uint64) and ``vocab.terms.bin`` (the terms' bytes, in the same order).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from hashlib import blake2b
from pathlib import Path
from typing import NamedTuple

import numpy as np

from searchain.tools.retrieval.embedded.directory import npy
from searchain.tools.retrieval.embedded.postings.compact import narrowed

FILES = ("vocab.hash.npy", "vocab.column.npy", "vocab.offsets.npy", "vocab.terms.bin")


def term_hash(term: str) -> int:
    """A term's 64-bit hash, the same in every process (Python's ``hash`` is salted)."""
    return int.from_bytes(blake2b(term.encode(), digest_size=8).digest(), "little")


def term_hashes(encoded: Sequence[bytes | memoryview]) -> np.ndarray:
    """:func:`term_hash` of many terms (UTF-8 bytes) at once, as uint64."""
    digests = b"".join([blake2b(term, digest_size=8).digest() for term in encoded])
    return np.frombuffer(digests, "<u8").astype(np.uint64)


class Terms(NamedTuple):
    """Terms as UTF-8, end to end: term ``i`` is ``data[ends[i]:ends[i + 1]]``.

    What a build writes, with no Python object a term: a dict or a list of 11M strings (21M
    passages) was the build's peak memory while the vocabulary was written.
    """

    data: np.ndarray
    """The bytes (uint8)."""
    ends: np.ndarray
    """Where each term starts, then where the last ends (int64, ``n + 1``)."""

    @classmethod
    def of(cls, terms: Sequence[str]) -> Terms:
        """``terms`` encoded (a few, as tests and small vocabularies have them)."""
        encoded = [term.encode() for term in terms]
        ends = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=ends[1:])
        return cls(np.frombuffer(b"".join(encoded), np.uint8), ends)

    def __len__(self) -> int:
        return len(self.ends) - 1


_CHUNK = 1 << 16
"""Terms hashed, and whose bytes are gathered, at a time (a chunk's index arrays: 8 bytes a
byte)."""


def hashed(terms: Terms) -> np.ndarray:
    """:func:`term_hashes` of every term of ``terms``, :data:`_CHUNK` terms at a time."""
    data = terms.data.tobytes()  # a bytes slice is made faster than a memoryview's
    hashes = np.empty(len(terms), np.uint64)
    for lo in range(0, len(terms), _CHUNK):
        bounds = terms.ends[lo : lo + _CHUNK + 1].tolist()
        hashes[lo : lo + len(bounds) - 1] = term_hashes(
            [data[a:b] for a, b in itertools.pairwise(bounds)]
        )
    return hashes


def write_vocabulary(directory: Path, terms: Terms) -> None:
    """Write ``terms`` as the mapped vocabulary's files in ``directory``, each at its position.

    Builds and updates only. The terms are hashed :data:`_CHUNK` at a time (:func:`hashed`) and
    their bytes gathered into hash order by NumPy as many at a time, so no Python object a term
    is held beyond a chunk.
    """
    n = len(terms)
    hashes = hashed(terms)
    order = np.argsort(hashes, kind="stable")
    offsets = np.zeros(n + 1, np.uint64)
    np.cumsum(np.diff(terms.ends)[order], out=offsets[1:])
    np.save(directory / "vocab.hash.npy", hashes[order])
    np.save(directory / "vocab.column.npy", order.astype(np.int32))
    np.save(directory / "vocab.offsets.npy", narrowed(offsets))
    with (directory / "vocab.terms.bin").open("wb") as out:
        for lo in range(0, n, _CHUNK):
            at = order[lo : lo + _CHUNK]
            starts, sizes = terms.ends[at], terms.ends[at + 1] - terms.ends[at]
            ends = np.cumsum(sizes)
            within = np.arange(ends[-1]) - np.repeat(
                ends - sizes, sizes
            )  # a byte's place in its term
            out.write(terms.data[np.repeat(starts, sizes) + within].tobytes())


class MappedVocabulary:
    """A vocabulary whose tables stay on disk (see the module's docstring)."""

    def __init__(self, directory: Path) -> None:
        self._hashes = npy.load(directory / "vocab.hash.npy", mmap=True)
        self._columns = npy.load(directory / "vocab.column.npy", mmap=True)
        self._offsets = npy.load(directory / "vocab.offsets.npy", mmap=True)
        size = (directory / "vocab.terms.bin").stat().st_size
        self._terms = (
            np.memmap(directory / "vocab.terms.bin", np.uint8, "r")
            if size
            else np.empty(0, np.uint8)
        )

    def __len__(self) -> int:
        return len(self._hashes)

    def columns(self, terms: Iterable[str]) -> list[int]:
        """The column of each term the vocabulary holds, in order; terms it lacks are left out.

        One binary search over the mapped hashes for the whole query, then a byte check each.
        """
        terms = list(terms)
        if not terms:
            return []
        wanted = term_hashes([term.encode() for term in terms])
        starts = np.searchsorted(self._hashes, wanted)
        found = []
        for term, h, i in zip(terms, wanted, starts.tolist(), strict=True):
            column = self._find(term.encode(), h, i)
            if column is not None:
                found.append(column)
        return found

    def terms(self) -> list[str]:
        """Every term, by column (an update adds the new documents' terms after them)."""
        data = self._terms.tobytes()
        ends = np.asarray(self._offsets).tolist()
        by_hash = [data[a:b].decode() for a, b in itertools.pairwise(ends)]
        terms = [""] * len(by_hash)
        for term, column in zip(by_hash, np.asarray(self._columns).tolist(), strict=True):
            terms[column] = term
        return terms

    def get(self, term: str) -> int | None:
        """``term``'s column, or ``None``."""
        wanted = np.uint64(term_hash(term))
        return self._find(term.encode(), wanted, int(np.searchsorted(self._hashes, wanted)))

    def _find(self, encoded: bytes, wanted: np.uint64, i: int) -> int | None:
        """The column of the term ``encoded`` whose hash ``wanted`` sorts at ``i``, if held."""
        while i < len(self._hashes) and self._hashes[i] == wanted:
            start, end = int(self._offsets[i]), int(self._offsets[i + 1])
            if self._terms[start:end].tobytes() == encoded:
                return int(self._columns[i])
            i += 1  # another term with the same hash
        return None
