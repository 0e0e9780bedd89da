"""The compact index's postings written: term ranges encoded by the codec, then the tables.

Builds and updates only (the codec compiles with numba); the layout is :mod:`.compact`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import numpy as np

from searchain.tools.retrieval.embedded.postings.codec import pack_terms
from searchain.tools.retrieval.embedded.postings.compact import (
    ARRAYS,
    BLOCK,
    NORM,
    PAD,
    POSTINGS,
    narrowed,
)

RANGE = 1 << 23
"""Postings encoded at a time by :meth:`PostingsWriter.add_all` (the codec's scratch: 8 bytes
each)."""


class PostingsWriter:
    """Appends term ranges' encoded postings to the files of :class:`CompactPostings`."""

    def __init__(self, directory: Path, df: np.ndarray, idf: np.ndarray, norm: np.ndarray) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.indptr = np.zeros(len(df) + 1, np.int64)
        np.cumsum(df, out=self.indptr[1:])
        self.blocks = np.zeros(len(df) + 1, np.int64)
        np.cumsum((df + BLOCK - 1) // BLOCK, out=self.blocks[1:])
        self.idf = idf
        self.norm = norm
        self._sizes: list[np.ndarray] = []
        self._last: list[np.ndarray] = []
        self._peak: list[np.ndarray] = []
        self._out: BinaryIO = (directory / POSTINGS).open("wb")

    def add(self, t0: int, t1: int, docs: np.ndarray, tfs: np.ndarray) -> None:
        """Terms ``t0 <= t < t1``'s postings, by term, passages ascending."""
        indptr = self.indptr[t0 : t1 + 1] - self.indptr[t0]
        data, sizes, last, peak = pack_terms(indptr, docs, tfs, self.idf[t0:t1], self.norm)
        self._out.write(data.tobytes())
        self._sizes.append(sizes)
        self._last.append(last)
        self._peak.append(peak)

    def add_all(self, docs: np.ndarray, tfs: np.ndarray) -> None:
        """Every term's postings (in :attr:`indptr`'s order), encoded a range at a time."""
        t0 = 0
        while t0 < len(self.indptr) - 1:
            limit = self.indptr[t0] + RANGE
            t1 = max(t0 + 1, int(np.searchsorted(self.indptr, limit, "right")) - 1)
            t1 = min(t1, len(self.indptr) - 1)
            a, b = self.indptr[t0], self.indptr[t1]
            self.add(t0, t1, docs[a:b], tfs[a:b])
            t0 = t1

    def close(self) -> None:
        """Write the tables once every term has been added."""
        self._out.write(bytes(PAD))
        self._out.close()
        sizes = np.concatenate(self._sizes) if self._sizes else np.empty(0, np.int64)
        if len(sizes) != self.blocks[-1]:
            raise AssertionError(f"{len(sizes)} blocks written, {self.blocks[-1]} expected")
        starts = np.zeros(len(sizes) + 1, np.int64)
        np.cumsum(sizes, out=starts[1:])
        tables = {
            "indptr": narrowed(self.indptr),
            "blocks": narrowed(self.blocks),
            "block_starts": narrowed(starts),
            "block_last": _joined(self._last, np.int32),
            "block_peak": _joined(self._peak, np.float32),
            "idf": self.idf,
        }
        assert set(tables) == set(ARRAYS)
        for name, array in tables.items():
            np.save(self.directory / f"{name}.npy", array)
        np.save(self.directory / NORM, self.norm)


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype)
