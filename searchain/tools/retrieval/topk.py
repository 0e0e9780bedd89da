"""Top-k BM25 scoring over bm25s's score matrix, compiled with numba.

bm25s stores BM25 as a documents × terms matrix in CSC form (each term's column lists the
documents it occurs in, ascending, with their precomputed scores). A query's score for a
document is the sum of its terms' entries. Summing whole columns into a dense vector costs
O(documents) per query, and even summing only the postings a query touches costs the length of
its common words' lists, which at Wikipedia's 21M passages run to millions.

This kernel is MaxScore (Turtle & Flood 1995) document at a time, as search engines run it: the
query's lists are walked together in document order, each document fully scored when it comes
up, the best k kept. Terms are ranked by their highest possible contribution (``term_max``);
once the k-th best score beats the sum of the lowest-ranked terms' bounds, a document found only
in those lists cannot make the top k, so they stop being walked ("non-essential") and are only
probed, by galloping, for the documents the others bring up — and a probe stops as soon as what
is left cannot lift the document past the k-th best. Stop words end up probed, not read. The
result is exact (ties to the lower document id, as a stable sort gives), and the kernel needs
no per-document scratch memory. A document's terms are summed in float64 in ascending term
order, whatever order the walk meets them in, so :mod:`.exhaustive` (plain NumPy, which answers
while this kernel loads) gives the same floats. Batches run on every core. Kernels compile on
first use and are cached on disk (numba's ``cache=True``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

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
def _top_k(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    term_max: np.ndarray,
    terms: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    # Terms by bound, lowest first; ub[i] is the most terms 0..i together can add to any
    # document (with a margin for float rounding, so a pruned document can never tie).
    m = len(terms)
    bounds = term_max[terms].astype(np.float64)
    order = np.argsort(bounds)
    terms = terms[order]
    ub = np.empty(m)
    total = 0.0
    for i in range(m):
        total += bounds[order[i]] * (1.0 + 1e-5) + 1e-6
        ub[i] = total
    pos = np.empty(m, dtype=np.int64)
    end = np.empty(m, dtype=np.int64)
    doc = _END
    for i in range(m):
        pos[i], end[i] = indptr[terms[i]], indptr[terms[i] + 1]
        if pos[i] < end[i]:
            doc = min(doc, np.int64(indices[pos[i]]))
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
        following = _END
        for i in range(essential, m):
            p = pos[i]
            if p < end[i] and indices[p] == doc:
                score += data[p]
                parts[order[i]], seen[order[i]] = data[p], doc
                p += 1
                pos[i] = p
            if p < end[i] and indices[p] < following:
                following = indices[p]
        pruned = False
        for i in range(essential - 1, -1, -1):
            if score + ub[i] <= best[low]:
                pruned = True  # the rest cannot lift it past the k-th best
                break
            p = _gallop(indices, pos[i], end[i], doc)
            pos[i] = p
            if p < end[i] and indices[p] == doc:
                score += data[p]
                parts[order[i]], seen[order[i]] = data[p], doc
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
    docs, scores = best_docs[keep], best[keep]
    by_doc = np.argsort(docs)
    docs, scores = docs[by_doc], scores[by_doc]
    ranked = np.argsort(-scores, kind="mergesort")  # stable: equal scores stay id-ordered
    return docs[ranked].astype(np.int32), scores[ranked].astype(np.float32)


@numba.njit(cache=True, parallel=True)
def _term_max(data: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    out = np.zeros(len(indptr) - 1, dtype=np.float32)
    for t in numba.prange(len(indptr) - 1):
        best = np.float32(0.0)
        for j in range(indptr[t], indptr[t + 1]):
            best = max(best, data[j])
        out[t] = best
    return out


@numba.njit(cache=True, parallel=True)
def _top_k_batch(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    term_max: np.ndarray,
    flat_terms: np.ndarray,
    offsets: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    n = len(offsets) - 1
    out_docs = np.full((n, k), -1, dtype=np.int32)
    out_scores = np.zeros((n, k), dtype=np.float32)
    for q in numba.prange(n):
        terms = flat_terms[offsets[q] : offsets[q + 1]]
        docs, scores = _top_k(data, indices, indptr, term_max, terms, k)
        out_docs[q, : len(docs)] = docs
        out_scores[q, : len(docs)] = scores
    return out_docs, out_scores


class TopK:
    """Top-k search over one bm25s score matrix; safe to call from many threads."""

    def __init__(self, scores: dict[str, Any], term_max: np.ndarray | None = None) -> None:
        self.data = np.asarray(scores["data"], dtype=np.float32)
        self.indices = np.asarray(scores["indices"], dtype=np.int32)
        self.indptr = np.asarray(scores["indptr"], dtype=np.int64)
        self.term_max = (
            _term_max(self.data, self.indptr)
            if term_max is None
            else np.asarray(term_max, dtype=np.float32)
        )
        """Each term's highest score in any document: the bound that lets a query skip most
        of a common word's postings."""

    def search(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores) of the best ``k`` documents for one query's term ids, best first."""
        return _top_k(
            self.data,
            self.indices,
            self.indptr,
            self.term_max,
            np.asarray(sorted(set(terms)), dtype=np.int64),
            k,
        )

    def search_batch(self, queries: list[list[int]], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores), one row per query, ``-1`` where a query has fewer than ``k``."""
        unique = [sorted(set(terms)) for terms in queries]
        offsets = np.zeros(len(unique) + 1, dtype=np.int64)
        np.cumsum([len(terms) for terms in unique], out=offsets[1:])
        flat = np.asarray([t for terms in unique for t in terms], dtype=np.int64)
        return _top_k_batch(self.data, self.indices, self.indptr, self.term_max, flat, offsets, k)
