"""Top-k BM25 over the compact index's postings, compiled with numba: block-max MaxScore.

A query's score for a passage is the sum of its terms' BM25 scores there, each computed from the
posting's term frequency and the passage's length norm (:mod:`.compact`). Summing whole lists
costs the length of the query's common words' lists, which at Wikipedia's 21M passages run to
millions.

This kernel is MaxScore (Turtle & Flood 1995) document at a time, as search engines run it: the
query's lists are walked together in passage order, block by block, each passage fully scored
when it comes up, the best k kept. Terms are ranked by their highest possible contribution
(its blocks' highest); once the k-th best score beats the sum of the lowest-ranked terms' bounds, a
passage found only in those lists cannot make the top k, so they stop being walked
("non-essential") and are only probed for the passages the others bring up: a probe skips
whole blocks by their last passage without decoding them, passes over a block whose highest
score (its *peak*) cannot lift the passage past the k-th best (block-max, Ding & Suel 2011),
and stops as soon as what is left cannot. Stop words end up probed, not read. The result is
exact (ties to the lower passage, as a stable sort gives), and the kernel needs no per-passage
scratch memory. A passage's terms are summed in float64 in ascending term order, whatever order
the walk meets them in, so :mod:`.exhaustive` (plain NumPy, which answers while this kernel
loads) gives the same floats. Batches run on every core. Kernels compile on first use and are
cached on disk (numba's ``cache=True``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from searchain.tools.retrieval.codec import decode_docs, frequency, unpack
from searchain.tools.retrieval.compact import BLOCK, CompactPostings


class CompactArrays(NamedTuple):
    """:class:`.CompactPostings`'s arrays as the kernel takes them (a tuple numba can type)."""

    data: np.ndarray
    words: np.ndarray
    indptr: np.ndarray
    blocks: np.ndarray
    starts: np.ndarray
    last: np.ndarray
    peak: np.ndarray
    idf: np.ndarray
    norm: np.ndarray


_END = np.iinfo(np.int64).max  # past every document: a list walked to its end


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
def _load(p: CompactArrays, term: int, g: int, docs: np.ndarray) -> tuple[int, int]:
    """Decode block ``g`` of ``term``'s passages into ``docs``.

    Returns how many it holds, and where its frequencies start: the caller decodes all of them,
    or only the one it needs.
    """
    first = p.blocks[term]
    n = min(BLOCK, p.indptr[term + 1] - p.indptr[term] - (g - first) * BLOCK)
    before = p.last[g - 1] if g > first else -1
    return n, decode_docs(p.data, p.words, p.starts[g], n, before, docs)


@numba.njit(cache=True, nogil=True)
def _walk(
    p: CompactArrays, term: int, g: int, docs: np.ndarray, tfs: np.ndarray
) -> tuple[int, int]:
    """Decode block ``g`` of ``term`` whole (a list walked: every frequency is needed).

    Returns what :func:`_load` does.
    """
    n, at = _load(p, term, g, docs)
    unpack(p.words, at, n, p.data[p.starts[g] + 1], tfs, 1)
    return n, at


@numba.njit(cache=True, nogil=True)
def _top_k(p: CompactArrays, terms: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    # Terms by bound, lowest first; ub[i] is the most terms 0..i together can add to any
    # document (with a margin for float rounding, so a pruned document can never tie).
    m = len(terms)
    bounds = np.zeros(m)
    for i in range(m):  # each term's highest score: its blocks' highest
        for g in range(p.blocks[terms[i]], p.blocks[terms[i] + 1]):
            bounds[i] = max(bounds[i], p.peak[g])
    order = np.argsort(bounds)
    terms = terms[order]
    ub = np.empty(m)
    total = 0.0
    for i in range(m):
        total += bounds[order[i]] * (1.0 + 1e-5) + 1e-6
        ub[i] = total
    weight = p.idf[terms]
    # Each term's place: its block ``g``, decoded into row i of ``docs``/``tfs`` (``loaded``),
    # and the posting ``at`` within it; ``g == end`` once the list is walked to its end.
    g = np.empty(m, np.int64)
    end = np.empty(m, np.int64)
    loaded = np.full(m, -1, np.int64)
    held = np.zeros(m, np.int64)
    at = np.zeros(m, np.int64)
    tf_at = np.zeros(m, np.int64)  # where a probed block's packed frequencies start
    docs = np.empty((m, BLOCK), np.int64)
    tfs = np.empty((m, BLOCK), np.float32)
    doc = _END
    for i in range(m):
        g[i], end[i] = p.blocks[terms[i]], p.blocks[terms[i] + 1]
        if g[i] < end[i]:
            held[i], tf_at[i] = _walk(p, terms[i], g[i], docs[i], tfs[i])
            loaded[i] = g[i]
            doc = min(doc, docs[i, 0])
    best_docs = np.full(k, -1, dtype=np.int64)
    best = np.full(k, -np.inf)
    # A document's score is its terms' scores summed in float64 in the caller's term order
    # (ascending ids), whatever order the walk meets them in, so the NumPy scorer that answers
    # before this kernel loads gives the very same floats: ``parts[j]`` holds term j's score
    # for the document ``seen[j]`` names, summed only for a document that may enter the top k.
    parts = np.zeros(m)
    seen = np.full(m, -1, dtype=np.int64)
    low = 0
    essential = 0  # terms below this index are non-essential: probed, not walked
    while essential < m and doc != _END:
        score = 0.0  # the walk's running sum: enough to prune by (the bounds have margins)
        norm = p.norm[doc]
        following = _END
        for i in range(essential, m):
            if g[i] < end[i] and docs[i, at[i]] == doc:
                tf = tfs[i, at[i]]
                s = weight[i] * tf / (norm + tf)
                score += s
                parts[order[i]], seen[order[i]] = s, doc
                at[i] += 1
                if at[i] == held[i]:
                    g[i] += 1
                    if g[i] < end[i]:
                        held[i], tf_at[i] = _walk(p, terms[i], g[i], docs[i], tfs[i])
                        loaded[i], at[i] = g[i], 0
            if g[i] < end[i] and docs[i, at[i]] < following:
                following = docs[i, at[i]]
        pruned = False
        for i in range(essential - 1, -1, -1):
            if score + ub[i] <= best[low]:
                pruned = True  # the rest cannot lift it past the k-th best
                break
            if g[i] < end[i] and p.last[g[i]] < doc:  # blocks skipped, never decoded
                g[i] = _gallop(p.last, g[i], end[i], doc)
            if g[i] == end[i]:
                continue
            rest = ub[i - 1] if i else 0.0
            if score + p.peak[g[i]] * (1.0 + 1e-5) + 1e-6 + rest <= best[low]:
                pruned = True  # not even this block's best posting would lift it
                break
            if loaded[i] != g[i]:  # passages decoded, frequencies left packed
                held[i], tf_at[i] = _load(p, terms[i], g[i], docs[i])
                loaded[i], at[i] = g[i], 0
            while docs[i, at[i]] < doc:
                at[i] += 1
            if docs[i, at[i]] == doc:
                tf = np.float32(frequency(p.data, p.words, p.starts[g[i]], tf_at[i], at[i]))
                s = weight[i] * tf / (norm + tf)
                score += s
                parts[order[i]], seen[order[i]] = s, doc
        if pruned or score * (1.0 + 1e-9) <= best[low]:  # summed in another order: a margin
            doc = following
            continue
        total = 0.0
        for j in range(m):
            if seen[j] == doc:
                total += parts[j]
        if total > best[low] and total > 0.0:  # ascending documents: a tie keeps the earlier
            best_docs[low], best[low] = doc, total
            low = _lowest(best_docs, best)
            while essential < m and ub[essential] <= best[low]:
                essential += 1
        doc = following
    keep = best_docs >= 0
    found, scores = best_docs[keep], best[keep]
    by_doc = np.argsort(found)
    found, scores = found[by_doc], scores[by_doc]
    ranked = np.argsort(-scores, kind="mergesort")  # stable: equal scores stay id-ordered
    return found[ranked].astype(np.int32), scores[ranked].astype(np.float32)


@numba.njit(cache=True, parallel=True)
def _top_k_batch(
    p: CompactArrays, flat_terms: np.ndarray, offsets: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    n = len(offsets) - 1
    out_docs = np.full((n, k), -1, dtype=np.int32)
    out_scores = np.zeros((n, k), dtype=np.float32)
    for q in numba.prange(n):
        docs, scores = _top_k(p, flat_terms[offsets[q] : offsets[q + 1]], k)
        out_docs[q, : len(docs)] = docs
        out_scores[q, : len(docs)] = scores
    return out_docs, out_scores


class TopK:
    """Top-k search over one index's compact postings; safe to call from many threads."""

    def __init__(self, postings: CompactPostings) -> None:
        self.arrays = CompactArrays(
            np.asarray(postings.data, dtype=np.uint8),
            np.asarray(postings.words, dtype=np.uint64),
            np.asarray(postings.indptr),  # uint32 or int64: as written, never copied
            np.asarray(postings.blocks),
            np.asarray(postings.block_starts),
            np.asarray(postings.block_last, dtype=np.int32),
            np.asarray(postings.block_peak, dtype=np.float32),
            np.asarray(postings.idf, dtype=np.float32),
            np.asarray(postings.norm, dtype=np.float32),
        )

    def search(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores) of the best ``k`` documents for one query's term ids, best first."""
        return _top_k(self.arrays, np.asarray(sorted(set(terms)), dtype=np.int64), k)

    def search_batch(self, queries: list[list[int]], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores), one row per query, ``-1`` where a query has fewer than ``k``."""
        unique = [sorted(set(terms)) for terms in queries]
        offsets = np.zeros(len(unique) + 1, dtype=np.int64)
        np.cumsum([len(terms) for terms in unique], out=offsets[1:])
        flat = np.asarray([t for terms in unique for t in terms], dtype=np.int64)
        return _top_k_batch(self.arrays, flat, offsets, k)
