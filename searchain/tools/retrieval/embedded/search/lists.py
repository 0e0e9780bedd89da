"""A query's posting lists as the kernel reads them: the index's arrays, each list's cursor.

What :mod:`.maxscore` does with a list — decode its block, walk it through a window of passages
summing scores, look one passage's score up — kept apart from how it prunes.

numba caches a compiled kernel on disk under its own file's stamp only, and these functions are
compiled into :mod:`.maxscore`'s: after editing this file (or :mod:`..codec`), delete
``kernel/__pycache__/*.nbi`` and ``*.nbc``, or the kernels cached before run on unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from searchain.tools.retrieval.embedded.postings.codec import decode_docs, frequency, unpack
from searchain.tools.retrieval.embedded.postings.compact import BLOCK


class CompactArrays(NamedTuple):
    """:class:`..compact.CompactPostings` as the kernel takes it (a tuple numba can type)."""

    data: np.ndarray
    words: np.ndarray
    indptr: np.ndarray
    blocks: np.ndarray
    starts: np.ndarray
    last: np.ndarray
    peak: np.ndarray
    idf: np.ndarray
    norm_code: np.ndarray
    """Each passage's length norm, as its place in ``norm_table`` (:mod:`.norms`)."""
    norm_table: np.ndarray
    """The distinct length norms, float32: ``norm_table[norm_code[doc]]`` is ``doc``'s."""


@numba.njit(cache=True, nogil=True)
def load_block(p: CompactArrays, term: int, g: int, docs: np.ndarray) -> tuple[int, int]:
    """Decode block ``g`` of ``term``'s passages into ``docs``.

    Returns how many it holds, and where its frequencies start: the caller decodes all of them,
    or only the one it needs.
    """
    first = p.blocks[term]
    n = min(BLOCK, p.indptr[term + 1] - p.indptr[term] - (g - first) * BLOCK)
    before = p.last[g - 1] if g > first else -1
    return n, decode_docs(p.data, p.words, p.starts[g], n, before, docs)


@numba.njit(cache=True, nogil=True)
def walk_block(
    p: CompactArrays, term: int, g: int, docs: np.ndarray, tfs: np.ndarray
) -> tuple[int, int]:
    """Decode block ``g`` of ``term`` whole (a list walked: every frequency is needed).

    Returns what :func:`load_block` does.
    """
    n, at = load_block(p, term, g, docs)
    unpack(p.words, at, n, p.data[p.starts[g] + 1], tfs, 1)
    return n, at


class Cursors(NamedTuple):
    """Where each of a query's lists stands (row ``i``: the term ranked ``i`` by its bound)."""

    g: np.ndarray
    """Its current block (``end`` once the list is walked to its end)."""
    end: np.ndarray
    """The block after its last."""
    loaded: np.ndarray
    """The block decoded into its row of ``docs`` (-1: none)."""
    held: np.ndarray
    """How many postings that block holds."""
    at: np.ndarray
    """The current posting within it."""
    tf_at: np.ndarray
    """Where that block's packed frequencies start (a probe reads one of them)."""
    docs: np.ndarray
    """The decoded block's passages."""
    tfs: np.ndarray
    """The decoded block's frequencies (a walked list's only: a probe leaves them packed)."""


@numba.njit(cache=True, nogil=True, inline="always")
def next_block(p: CompactArrays, c: Cursors, i: int, term: int) -> None:
    """Move list ``i``'s walk to its next block, decoded whole."""
    c.g[i] += 1
    if c.g[i] < c.end[i]:
        c.held[i], c.tf_at[i] = walk_block(p, term, c.g[i], c.docs[i], c.tfs[i])
        c.loaded[i], c.at[i] = c.g[i], 0


@numba.njit(cache=True, nogil=True, inline="always")
def sum_window(
    p: CompactArrays,
    c: Cursors,
    i: int,
    term: int,
    weight: float,
    start: int,
    stop: int,
    acc: np.ndarray,
    hits: np.ndarray,
) -> None:
    """Add walked list ``i``'s scores for passages ``[start, stop)`` into ``acc``, marking ``hits``.

    Block by block: the postings of a block below ``stop`` are counted first, then summed in a
    loop with no exit and the cursor kept in locals (held in the cursors' arrays, every posting
    paid a store and a reload).
    """
    g, end = c.g[i], c.end[i]
    if g >= end:
        return
    at, held = c.at[i], c.held[i]
    docs, tfs = c.docs[i], c.tfs[i]
    code, table = p.norm_code, p.norm_table
    while True:
        lim = held
        if docs[held - 1] >= stop:
            lim = at
            while docs[lim] < stop:
                lim += 1
        for j in range(at, lim):
            doc = docs[j]
            tf = tfs[j]
            slot = np.uint64(doc - start)
            acc[slot] += weight * tf / (table[code[doc]] + tf)
            hits[slot >> np.uint64(6)] |= np.uint64(1) << (slot & np.uint64(63))
        at = lim
        if at < held:
            break
        g += 1
        if g >= end:
            break
        held, c.tf_at[i] = walk_block(p, term, g, docs, tfs)
        c.loaded[i], at = g, 0
    c.g[i], c.at[i], c.held[i] = g, at, held


@numba.njit(cache=True, nogil=True)
def score_at(p: CompactArrays, term: int, weight: float, doc: int, scratch: np.ndarray) -> float:
    """``term``'s score for ``doc`` (0 if absent): its block found by last passage, decoded."""
    first, after = p.blocks[term], p.blocks[term + 1]
    g = first + np.searchsorted(p.last[first:after], doc)
    if g == after:
        return 0.0
    n, tf_at = load_block(p, term, g, scratch)
    i = np.searchsorted(scratch[:n], doc)
    if scratch[i] != doc:
        return 0.0
    tf = np.float32(frequency(p.data, p.words, p.starts[g], tf_at, i))
    return weight * tf / (p.norm_table[p.norm_code[doc]] + tf)
