"""The compact index's postings on disk: written range by range, mapped on open, read in NumPy.

Files (in an index's ``bm25/``), the blocks laid out as :mod:`.codec` says:

* ``postings.bin``: every block, term after term, then :data:`PAD` zero bytes;
* ``indptr.npy`` (terms + 1): where each term's postings start, counted in postings (its
  document frequency is the difference);
* ``blocks.npy`` (terms + 1): each term's first block;
* ``block_starts.npy`` (blocks + 1): each block's first byte in ``postings.bin``;
* ``block_last.npy`` (int32) and ``block_peak.npy`` (float32): each block's last passage and
  highest score (a term's highest is the highest of its blocks');
* ``idf.npy`` (float32, a term each);
* ``norm.npy`` (float32, a passage each): ``k1 * (1 - b + b * dl / avgdl)``.

A posting's score is ``idf * tf / (norm + tf)`` in float32, from these, exactly as the build
computes it. The three offset tables are uint32 where their last value fits, else int64. Opening
maps the files and reads none of them; this module imports no numba, so
:mod:`.first_search` answers with it while the search kernel loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from searchain.tools.retrieval.embedded.directory import npy

BLOCK = 128
"""Postings a block holds (a term's last block: the rest)."""
HEADER = 2
"""Bytes before a block's packed values: the two bit widths."""
PAD = 8
"""Zero bytes after the last block, so that any value is read as the 8 bytes it starts in."""
MARGIN = (1e-5, 1e-6)
"""A term's bound (its blocks' highest score) is raised by this share and then this much before a
passage is pruned by it: the float rounding of a sum of scores can then never make a pruned
passage tie the k-th best (the kernel and the NumPy scorer prune by the same bounds)."""
POSTINGS = "postings.bin"
ARRAYS = ("indptr", "blocks", "block_starts", "block_last", "block_peak", "idf")
NORM = "norm.npy"
CHUNK = 128
"""Blocks :meth:`CompactPostings.term` decodes at a time (16,384 postings)."""
_WITHIN = np.tile(np.arange(BLOCK, dtype=np.int64), CHUNK)
"""Each posting's place in its block, for a chunk of whole blocks."""


def narrowed(offsets: np.ndarray) -> np.ndarray:
    """Ascending offsets as uint32 where the last fits, else as they are (int64, uint64).

    Wikipedia's size fits (1.6 billion postings, 2 GiB of blocks): half the bytes of the tables
    a term or a block has.
    """
    return offsets.astype(np.uint32) if offsets[-1] < 2**32 else offsets


@dataclass(frozen=True)
class CompactPostings:
    """An index's postings, mapped from disk (see the module)."""

    data: np.ndarray
    """``postings.bin``'s bytes (uint8)."""
    indptr: np.ndarray
    """Each term's first posting, then the total."""
    blocks: np.ndarray
    """Each term's first block, then the total."""
    block_starts: np.ndarray
    """Each block's first byte in :attr:`data`, then the blocks' size."""
    block_last: np.ndarray
    """Each block's last passage (int32)."""
    block_peak: np.ndarray
    """Each block's highest score (float32)."""
    idf: np.ndarray
    """Each term's idf (float32)."""
    norm: np.ndarray
    """Each passage's length norm (float32)."""

    @classmethod
    def load(cls, directory: Path, *, mmap: bool = True) -> CompactPostings:
        """Map (or, without ``mmap``, read) the files in ``directory``."""
        arrays = {name: npy.load(directory / f"{name}.npy", mmap=mmap) for name in ARRAYS}
        path = directory / POSTINGS
        if not path.stat().st_size:
            data = np.empty(0, np.uint8)
        elif mmap:
            data = np.memmap(path, np.uint8, "r")
        else:
            data = np.fromfile(path, np.uint8)
        return cls(data=data, norm=npy.load(directory / NORM, mmap=mmap), **arrays)

    @property
    def words(self) -> np.ndarray:
        """:attr:`data` seen as little-endian 64-bit words (what the codec decodes from)."""
        return self.data[: len(self.data) // 8 * 8].view("<u8")

    def check(self, terms: int, passages: int) -> str | None:
        """What in the tables does not fit ``terms`` terms and ``passages``; None if all does."""
        blocks = len(self.block_last)
        if len(self.indptr) != terms + 1 or len(self.blocks) != terms + 1:
            return "postings tables for another vocabulary"
        if len(self.idf) != terms:
            return "term tables for another vocabulary"
        if len(self.norm) != passages:
            return "passage norms"
        if len(self.block_starts) != blocks + 1 or len(self.block_peak) != blocks:
            return "posting block tables"
        if self.blocks[-1] != blocks or self.block_starts[-1] + PAD != len(self.data):
            return "postings size"
        return None

    def postings(self, terms: list[int]) -> int:
        """How many postings ``terms`` hold."""
        return sum(int(self.indptr[t + 1] - self.indptr[t]) for t in terms)

    def term(self, t: int, chosen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Term ``t``'s passages (int64, ascending) and frequencies (float32), decoded in NumPy.

        ``chosen``: only these of its blocks (ascending, counted from its first), which a probe
        for a few passages needs (:mod:`.first_search`); by default every block. :data:`CHUNK`
        blocks at a time: each step's arrays then stay in the cache and are reused by the
        allocator, where a long list's whole-length temporaries cost a page fault every 4 KiB.
        """
        first, end = int(self.indptr[t]), int(self.indptr[t + 1])
        g0, g1 = int(self.blocks[t]), int(self.blocks[t + 1])
        if chosen is None:
            chosen = np.arange(g1 - g0)
        if first == end or not len(chosen):
            return np.empty(0, np.int64), np.empty(0, np.float32)
        counts = np.full(len(chosen), BLOCK, np.int64)
        if chosen[-1] == g1 - g0 - 1:
            counts[-1] = end - first - BLOCK * (g1 - g0 - 1)
        starts = np.asarray(self.block_starts[g0 + chosen], np.int64)
        gap_bits = self.data[starts].astype(np.int64)
        gaps = _Packed(starts + HEADER, gap_bits)
        tfs = _Packed(starts + HEADER + (counts * gap_bits + 7) // 8, self.data[starts + 1])
        words = np.ndarray((len(self.data) - PAD + 1,), "<u8", buffer=self.data, strides=(1,))
        n = int(counts.sum())
        docs, frequencies = np.empty(n, np.int64), np.empty(n, np.float32)
        ends = np.cumsum(counts)
        for c in range(0, len(chosen), CHUNK):
            block = np.repeat(np.arange(c, min(c + CHUNK, len(chosen))), counts[c : c + CHUNK])
            here = slice(ends[c] - counts[c], ends[c] - counts[c] + len(block))
            within = _WITHIN[: len(block)]
            docs[here] = gaps.unpack(words, block, within).view(np.int64)
            frequencies[here] = tfs.unpack(words, block, within) + np.uint64(1)
        # A gap counts from the passage before, across blocks too: one running sum, shifted in
        # each block by the passage its block starts after (-1 before the first).
        docs += 1
        np.cumsum(docs, out=docs)
        shift = np.where(chosen > 0, self.block_last[g0 + chosen - 1], -1).astype(np.int64)
        shift[1:] -= docs[ends[:-1] - 1]  # the sum the blocks before it left
        if (shift == shift[0]).all():  # contiguous blocks: one shift (every block, -1)
            docs += shift[0]
        else:
            docs += np.repeat(shift, counts)
        return docs, frequencies

    def scores(self, t: int, chosen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Term ``t``'s passages and their BM25 scores (float32), as the build computes them.

        ``chosen``: only these of its blocks (:meth:`term`).
        """
        docs, tfs = self.term(t, chosen)
        scores = np.empty(len(docs), np.float32)
        idf = self.idf[t]
        for c in range(0, len(docs), CHUNK * BLOCK):  # in the cache, as :meth:`term` decodes
            here = slice(c, c + CHUNK * BLOCK)
            scores[here] = idf * tfs[here] / (self.norm[docs[here]] + tfs[here])
        return docs, scores


class _Packed:
    """One kind of value (gaps or frequencies) of a term's blocks, each block's at its width."""

    def __init__(self, starts: np.ndarray, widths: np.ndarray) -> None:
        self.starts = starts
        """Each block's first byte of these values."""
        self.widths = widths.astype(np.int64)
        """Each block's bits a value."""
        self.masks = (np.uint64(1) << widths.astype(np.uint64)) - np.uint64(1)
        """Each block's value mask."""

    def unpack(self, words: np.ndarray, block: np.ndarray, within: np.ndarray) -> np.ndarray:
        """The values ``within`` each ``block`` (uint64).

        ``words`` is the data seen as little-endian 8-byte integers starting at every byte:
        each value lies in the 8 bytes from its first (7 + 32 bits at most).
        """
        bit = within * self.widths[block]
        values = words[self.starts[block] + (bit >> 3)]
        values >>= (bit & 7).astype(np.uint64)
        values &= self.masks[block]
        return values
