"""The index's vocabulary on disk, mapped rather than parsed: term → column in microseconds.

Parsing ``vocab.index.json`` into a dict took 2.4 s and most of a process's private memory at
1M passages (1.75M terms), and grew with the corpus. Here the terms are a table sorted by a
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
from collections.abc import Iterable, Mapping
from hashlib import blake2b
from pathlib import Path

import numpy as np

from searchain.tools.retrieval import npy
from searchain.tools.retrieval.compact import narrowed

FILES = ("vocab.hash.npy", "vocab.column.npy", "vocab.offsets.npy", "vocab.terms.bin")


def term_hash(term: str) -> int:
    """A term's 64-bit hash, the same in every process (Python's ``hash`` is salted)."""
    return int.from_bytes(blake2b(term.encode(), digest_size=8).digest(), "little")


def term_hashes(encoded: list[bytes]) -> np.ndarray:
    """:func:`term_hash` of many terms (UTF-8 bytes) at once, as uint64."""
    digests = b"".join([blake2b(term, digest_size=8).digest() for term in encoded])
    return np.frombuffer(digests, "<u8").astype(np.uint64)


def write_vocabulary(directory: Path, vocab: Mapping[str, int]) -> None:
    """Write ``vocab`` (term → column) as the mapped vocabulary's files in ``directory``."""
    encoded = [term.encode() for term in vocab]
    hashes = term_hashes(encoded)
    order = np.argsort(hashes, kind="stable")
    encoded = [encoded[i] for i in order]
    offsets = np.zeros(len(encoded) + 1, np.uint64)
    np.cumsum(np.fromiter(map(len, encoded), np.uint64, len(encoded)), out=offsets[1:])
    np.save(directory / "vocab.hash.npy", hashes[order])
    np.save(directory / "vocab.column.npy", np.fromiter(vocab.values(), np.int32)[order])
    np.save(directory / "vocab.offsets.npy", narrowed(offsets))
    with (directory / "vocab.terms.bin").open("wb") as out:
        out.writelines(encoded)


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

    def as_dict(self) -> dict[str, int]:
        """Every term and its column (an update adds the new documents' terms to it)."""
        data = self._terms.tobytes()
        ends = np.asarray(self._offsets).tolist()
        terms = [data[a:b].decode() for a, b in itertools.pairwise(ends)]
        return dict(zip(terms, np.asarray(self._columns).tolist(), strict=True))

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
