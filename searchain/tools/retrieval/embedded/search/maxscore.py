"""Top-k BM25 over the compact index's postings, compiled with numba: block-max MaxScore.

A query's score for a passage is the sum of its terms' BM25 scores there, each computed from the
posting's term frequency and the passage's length norm (:mod:`..compact`; the kernel reads the
norms as codes, :mod:`.norms`). Summing whole lists
costs the length of the query's common words' lists, which at Wikipedia's 21M passages run to
millions.

This kernel is MaxScore (Turtle & Flood 1995) as Lucene's bulk scorer runs it: window by window
of :data:`WINDOW` passages. Terms are ranked by their highest possible contribution (its blocks'
highest); once the k-th best score beats the sum of the lowest-ranked terms' bounds, a passage
found only in those lists cannot make the top k, so they stop being walked ("non-essential") and
are only probed. In a window, the walked lists' scores are summed list after list into one small
array (a bit a passage marks which any of them hold), then those passages are read back in order,
each pruned at once if its walked score plus the probed lists' bounds cannot pass the k-th best,
else probed: a probe skips whole blocks by their last passage without decoding them, passes over
a block whose highest score (its *peak*) cannot lift the passage past the k-th best (block-max,
Ding & Suel 2011), and stops as soon as what is left cannot. Stop words end up probed, not read.
Summing a window list by list, rather than passage by passage over every walked list, is what a
long question needs: its dozen walked lists cost one pass each, not a dozen comparisons a passage.

The result is exact (ties to the lower passage, as a stable sort gives), and the kernel needs no
per-passage scratch memory beyond a window's. A passage that may enter the top k is scored again,
its terms summed in float64 in ascending term order, so :mod:`..exhaustive` and
:mod:`..first_search` (plain NumPy, which answers while this kernel loads) give the same floats. The
kernel searches a range of passages (:func:`search_range`): one query split into ranges runs them in
threads at once (:mod:`.topk`), each pruning by the best k-th score any has found. Batches run on
every core. Kernels compile on first use and are cached on disk (numba's ``cache=True``).
"""

from __future__ import annotations

import numba
import numpy as np

from searchain.tools.retrieval.embedded.postings.codec import frequency
from searchain.tools.retrieval.embedded.postings.compact import BLOCK, MARGIN
from searchain.tools.retrieval.embedded.search.lists import (
    CompactArrays,
    Cursors,
    load_block,
    next_block,
    score_at,
    sum_window,
)

_END = np.iinfo(np.int64).max  # past every document: a list walked to its end

WINDOW = 4096
"""Passages a window of the walk spans: the walked lists' scores for them are summed into one
small array, list after list, and the passages any of them hold read back in order."""

# A set bit's position from the bit alone: (bit * _DEBRUIJN) >> 58 is distinct for each of the
# 64 bits (a de Bruijn sequence), and _DEBRUIJN_BITS maps it back.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_BITS = np.zeros(64, np.int64)
for _bit in range(64):
    _DEBRUIJN_BITS[((_DEBRUIJN.item() << _bit) & (2**64 - 1)) >> 58] = _bit


@numba.njit(cache=True, nogil=True)
def _gallop(indices: np.ndarray, start: int, end: int, doc: int) -> int:
    """The first position in ``[start, end)`` whose document is at least ``doc``.

    Doubling steps, then a binary search: probing a long list for ascending documents costs
    O(log(gap)) each, and reads the list front to back.
    """
    step = 1
    hi = start
    while hi < end and indices[hi] < doc:
        start = hi + 1
        hi += step
        step *= 2
    hi = min(hi, end)
    return start + np.searchsorted(indices[start:hi], doc)


@numba.njit(cache=True, nogil=True)
def _lowest(best_docs: np.ndarray, best: np.ndarray) -> int:
    """Where the weakest of the kept results is: lowest score, then highest document."""
    low = 0
    for c in range(1, len(best)):
        if best[c] < best[low] or (best[c] == best[low] and best_docs[c] > best_docs[low]):
            low = c
    return low


@numba.njit(cache=True, nogil=True)
def _exact(
    p: CompactArrays,
    terms: np.ndarray,
    weight: np.ndarray,
    rank: np.ndarray,
    probed: int,
    doc: int,
    parts: np.ndarray,
    scratch: np.ndarray,
) -> float:
    """``doc``'s score, its terms' scores summed in float64 in the caller's (ascending) order.

    The walk sums in another order, which may round differently; this sum is the one
    :mod:`..exhaustive` makes. The probed lists' scores are in ``parts`` (``parts[i]``: list
    ``i``'s, 0 where it has none); the walked lists' are looked up (a few hundred passages a
    query get this far).
    """
    total = 0.0
    for j in range(len(terms)):
        i = rank[j]
        total += parts[i] if i < probed else score_at(p, terms[i], weight[i], doc, scratch)
    return total


@numba.njit(cache=True, nogil=True)
def plan(
    p: CompactArrays, terms: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A query's terms ranked by bound, lowest first: (terms, their weights, rank, ub).

    ``rank[j]`` is the caller's term ``j``'s rank; ``ub[i]`` the most terms ``0..i`` together can
    add to any passage (with a margin for float rounding, so a pruned passage can never tie).
    """
    m = len(terms)
    bounds = np.zeros(m)
    for i in range(m):  # each term's highest score: its blocks' highest
        for g in range(p.blocks[terms[i]], p.blocks[terms[i] + 1]):
            bounds[i] = max(bounds[i], p.peak[g])
    order = np.argsort(bounds)
    ub = np.empty(m)
    total = 0.0
    for i in range(m):
        total += bounds[order[i]] * (1.0 + MARGIN[0]) + MARGIN[1]
        ub[i] = total
    return terms[order], p.idf[terms[order]], np.argsort(order), ub


@numba.njit(cache=True, nogil=True)
def search_range(
    p: CompactArrays,
    terms: np.ndarray,
    weight: np.ndarray,
    rank: np.ndarray,
    ub: np.ndarray,
    k: int,
    window: int,
    lo: int,
    hi: int,
    shared: np.ndarray,
    me: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``k`` of passages ``[lo, hi)`` (unordered; -1 where fewer), from :func:`plan`.

    ``shared[me]`` is kept at this range's k-th best score, and every ``shared`` entry is read
    as a floor: ranges searched at once in other threads prune by each other's k-th best. That
    k-th best is of passages elsewhere, so a pruning test here must be strict — a passage that
    only ties it may still rank first (the lower passage wins a tie); every test below is, by
    the bounds' margin. Reading a stale floor only prunes less.
    """
    m = len(terms)
    c = Cursors(
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m, np.int64),
        np.zeros(m, np.int64),
        np.zeros(m, np.int64),
        np.empty((m, BLOCK), np.int64),
        np.empty((m, BLOCK), np.float32),
    )
    for i in range(m):  # each list from its first passage in the range
        first, c.end[i] = p.blocks[terms[i]], p.blocks[terms[i] + 1]
        c.g[i] = first + np.searchsorted(p.last[first : c.end[i]], lo) - 1
        next_block(p, c, i, terms[i])
        while c.g[i] < c.end[i] and c.docs[i, c.at[i]] < lo:
            c.at[i] += 1
    best_docs = np.full(k, -1, dtype=np.int64)
    best = np.full(k, -np.inf)
    low = 0
    acc = np.zeros(window)  # the walked lists' scores for the window's passages
    hits = np.zeros((window + 63) // 64, np.uint64)  # which of them any walked list holds
    parts = np.zeros(m)
    scratch = np.empty(BLOCK, np.int64)
    essential = 0  # terms below this index are non-essential: probed, not walked
    floor = -np.inf  # the k-th best here or in any range beside: what a passage must beat
    while True:
        floor = max(floor, shared.max())
        while essential < m and ub[essential] <= floor:
            essential += 1
        start = _END  # the window starts at the walked lists' first passage
        for i in range(essential, m):
            if c.g[i] < c.end[i]:
                start = min(start, c.docs[i, c.at[i]])
        if start >= hi:
            break
        stop = min(start + window, hi)
        for i in range(essential, m):  # the walked lists' postings in the window, summed
            sum_window(p, c, i, terms[i], weight[i], start, stop, acc, hits)
        # Lists that turn non-essential in this window were walked through it already.
        probed = essential
        for h in range(len(hits)):  # the window's passages, ascending
            word = hits[h]
            hits[h] = 0
            while word:
                bit = word & (~word + np.uint64(1))
                word ^= bit
                slot = h * 64 + _DEBRUIJN_BITS[(bit * _DEBRUIJN) >> np.uint64(58)]
                score = acc[slot]
                acc[slot] = 0.0
                doc = start + slot
                # The probed lists, best bound first: a probe skips blocks by their last
                # passage without decoding them, stops at a block whose peak cannot lift the
                # passage past the k-th best, and decodes a block's passages only, reading
                # the one frequency it needs. (Inline: a call here costs more than a probe.)
                pruned = False
                for i in range(probed - 1, -1, -1):
                    parts[i] = 0.0
                    if score + ub[i] <= floor:
                        pruned = True  # the rest cannot lift it past the k-th best
                        break
                    if c.g[i] < c.end[i] and p.last[c.g[i]] < doc:  # skipped, not decoded
                        c.g[i] = _gallop(p.last, c.g[i], c.end[i], doc)
                    if c.g[i] == c.end[i]:
                        continue
                    rest = ub[i - 1] if i else 0.0
                    if score + p.peak[c.g[i]] * (1.0 + 1e-5) + 1e-6 + rest <= floor:
                        pruned = True  # not even this block's best posting would lift it
                        break
                    if c.loaded[i] != c.g[i]:  # passages decoded, frequencies left packed
                        c.held[i], c.tf_at[i] = load_block(p, terms[i], c.g[i], c.docs[i])
                        c.loaded[i], c.at[i] = c.g[i], 0
                    while c.docs[i, c.at[i]] < doc:
                        c.at[i] += 1
                    if c.docs[i, c.at[i]] == doc:
                        tf_at, at = c.tf_at[i], c.at[i]
                        tf = np.float32(frequency(p.data, p.words, p.starts[c.g[i]], tf_at, at))
                        parts[i] = weight[i] * tf / (p.norm_table[p.norm_code[doc]] + tf)
                        score += parts[i]
                if pruned or score * (1.0 + 1e-9) <= floor:  # summed in another order
                    continue
                total = _exact(p, terms, weight, rank, probed, doc, parts, scratch)
                if total > best[low] and total > 0.0:  # ascending: a tie keeps the earlier
                    best_docs[low], best[low] = doc, total
                    low = _lowest(best_docs, best)
                    shared[me] = best[low]
                    floor = max(floor, best[low])
                    while essential < m and ub[essential] <= floor:
                        essential += 1
    return best_docs, best


@numba.njit(cache=True, nogil=True)
def ranked(docs: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The best ``k`` of ranges' results (``docs`` -1: none), best first, a tie to the lower."""
    keep = docs >= 0
    found, scores = docs[keep], scores[keep]
    by_doc = np.argsort(found)
    found, scores = found[by_doc], scores[by_doc]
    ranked = np.argsort(-scores, kind="mergesort")[:k]  # stable: equal scores stay id-ordered
    return found[ranked].astype(np.int32), scores[ranked].astype(np.float32)


@numba.njit(cache=True, nogil=True)
def top_k(
    p: CompactArrays, terms: np.ndarray, k: int, window: int
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``k`` passages for ``terms`` (ascending, distinct), best first, in one thread."""
    order, weight, rank, ub = plan(p, terms)
    shared = np.full(1, -np.inf)
    everything = len(p.norm_code)
    docs, scores = search_range(p, order, weight, rank, ub, k, window, 0, everything, shared, 0)
    return ranked(docs, scores, k)


@numba.njit(cache=True, nogil=True)
def top_k_each(
    p: CompactArrays,
    flat_terms: np.ndarray,
    offsets: np.ndarray,
    first: int,
    last: int,
    k: int,
    window: int,
    out_docs: np.ndarray,
    out_scores: np.ndarray,
) -> None:
    """:func:`top_k` of queries ``first`` to ``last`` (excluded) into their rows of the outputs.

    Query ``q``'s terms are ``flat_terms[offsets[q]:offsets[q + 1]]``. A batch's threads each call
    it on a share of the queries (:meth:`.topk.TopK.search_batch`): a plain loop, where numba's
    ``prange`` took seconds more to compile on a fresh install's first build.
    """
    for q in range(first, last):
        docs, scores = top_k(p, flat_terms[offsets[q] : offsets[q + 1]], k, window)
        out_docs[q, : len(docs)] = docs
        out_scores[q, : len(docs)] = scores
