"""Top-k BM25 scoring over bm25s's score matrix, compiled with numba.

bm25s stores BM25 as a documents × terms matrix in CSC form (each term's column lists the
documents it occurs in, ascending, with their precomputed scores). A query's scores are the sum of
its terms' columns. Summing them into a dense vector of every document and partitioning it costs
O(documents) per query whatever the query; this kernel adds only the postings the query touches
into a reused buffer and selects the top k among the documents touched. It also prunes the way
MaxScore does (Turtle & Flood 1995): rare terms go first, and once the k-th best partial score
beats the most the remaining terms could add, documents not seen yet cannot make the top k, so
the long lists of common words are only probed (binary search) for the few candidates left. The
result is exact. Batches run on every core. Kernels compile on first use and are cached on disk
(numba's ``cache=True``).
"""

from __future__ import annotations

import threading
from typing import Any

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _kth_largest(buffer: np.ndarray, docs: np.ndarray, n: int, k: int) -> float:
    values = np.empty(n, dtype=np.float32)
    for i in range(n):
        values[i] = -buffer[docs[i]]
    return -np.partition(values, k - 1)[k - 1]


@numba.njit(cache=True, nogil=True)
def _top_k(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    term_max: np.ndarray,
    terms: np.ndarray,
    k: int,
    buffer: np.ndarray,
    touched: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    # Terms by their highest possible contribution, best first; rest[i] bounds what the terms
    # from i on can still add to any document (with a margin for float32 rounding).
    bounds = term_max[terms].astype(np.float64)
    order = np.argsort(-bounds)
    terms, bounds = terms[order], bounds[order]
    m = len(terms)
    rest = np.zeros(m + 1)
    for i in range(m - 1, -1, -1):
        rest[i] = rest[i + 1] + bounds[i] * (1.0 + 1e-5) + 1e-6
    # Phase 1: add whole posting lists, rare (high-scoring) terms first, until the k-th best
    # partial score beats everything the remaining terms could give a document not seen yet.
    n = 0
    i = 0
    theta = -1.0
    while i < m:
        t = terms[i]
        for j in range(indptr[t], indptr[t + 1]):
            doc = indices[j]
            if buffer[doc] == 0.0:
                touched[n] = doc
                n += 1
            buffer[doc] += data[j]
        i += 1
        if i < m and n >= k:
            theta = _kth_largest(buffer, touched, n, k)
            if theta > rest[i]:
                break
    # Phase 2: only documents already seen can still make the top k, and only those whose
    # partial score plus the rest can reach theta: look each up in the remaining lists.
    while i < m:
        kept = 0
        for c in range(n):
            doc = touched[c]
            if buffer[doc] + rest[i] >= theta:
                touched[kept] = doc
                kept += 1
            else:
                buffer[doc] = 0.0
        n = kept
        t = terms[i]
        lo, hi = indptr[t], indptr[t + 1]
        postings = indices[lo:hi]
        if n * 20 < hi - lo:  # binary search per candidate beats a scan of the list
            for c in range(n):
                doc = touched[c]
                at = np.searchsorted(postings, doc)
                if at < hi - lo and postings[at] == doc:
                    buffer[doc] += data[lo + at]
        else:
            for j in range(lo, hi):
                doc = indices[j]
                if buffer[doc] != 0.0:
                    buffer[doc] += data[j]
        i += 1
        if i < m:
            theta = _kth_largest(buffer, touched, n, k)
    # Keep the best k in a small sorted list while clearing the buffer for the next query;
    # ties go to the lower document id, as in a stable sort.
    top_docs = np.full(k, -1, dtype=np.int32)
    top_scores = np.full(k, -np.inf, dtype=np.float32)
    for i in range(n):
        doc = touched[i]
        score = buffer[doc]
        buffer[doc] = 0.0
        if score < top_scores[k - 1] or (score == top_scores[k - 1] and doc > top_docs[k - 1]):
            continue
        j = k - 1
        while j > 0 and (
            score > top_scores[j - 1] or (score == top_scores[j - 1] and doc < top_docs[j - 1])
        ):
            top_scores[j] = top_scores[j - 1]
            top_docs[j] = top_docs[j - 1]
            j -= 1
        top_scores[j] = score
        top_docs[j] = doc
    found = min(k, n)
    return top_docs[:found], top_scores[:found]


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
    n_docs: int,
    workers: int,
) -> tuple[np.ndarray, np.ndarray]:
    n = len(offsets) - 1
    out_docs = np.full((n, k), -1, dtype=np.int32)
    out_scores = np.zeros((n, k), dtype=np.float32)
    buffers = np.zeros((workers, n_docs), dtype=np.float32)
    touched = np.empty((workers, n_docs), dtype=np.int32)
    chunk = (n + workers - 1) // workers
    for w in numba.prange(workers):
        for q in range(w * chunk, min(n, (w + 1) * chunk)):
            terms = flat_terms[offsets[q] : offsets[q + 1]]
            docs, scores = _top_k(data, indices, indptr, term_max, terms, k, buffers[w], touched[w])
            out_docs[q, : len(docs)] = docs
            out_scores[q, : len(docs)] = scores
    return out_docs, out_scores


class TopK:
    """Top-k search over one bm25s score matrix; safe to call from many threads."""

    def __init__(
        self, scores: dict[str, Any], n_docs: int, term_max: np.ndarray | None = None
    ) -> None:
        self.data = np.asarray(scores["data"], dtype=np.float32)
        self.indices = np.asarray(scores["indices"], dtype=np.int32)
        self.indptr = np.asarray(scores["indptr"], dtype=np.int64)
        self.n_docs = n_docs
        self.term_max = (
            _term_max(self.data, self.indptr)
            if term_max is None
            else np.asarray(term_max, dtype=np.float32)
        )
        """Each term's highest score in any document: the bound that lets a query skip most
        of a common word's postings."""
        self._scratch = threading.local()

    def search(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores) of the best ``k`` documents for one query's term ids, best first."""
        scratch = getattr(self._scratch, "arrays", None)
        if scratch is None:  # one pair of scratch arrays per thread: no lock, no reallocation
            scratch = self._scratch.arrays = (
                np.zeros(self.n_docs, dtype=np.float32),
                np.empty(self.n_docs, dtype=np.int32),
            )
        buffer, touched = scratch
        return _top_k(
            self.data,
            self.indices,
            self.indptr,
            self.term_max,
            np.asarray(sorted(set(terms)), dtype=np.int64),
            k,
            buffer,
            touched,
        )

    def search_batch(self, queries: list[list[int]], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores), one row per query, ``-1`` where a query has fewer than ``k``."""
        unique = [sorted(set(terms)) for terms in queries]
        offsets = np.zeros(len(unique) + 1, dtype=np.int64)
        np.cumsum([len(terms) for terms in unique], out=offsets[1:])
        flat = np.asarray([t for terms in unique for t in terms], dtype=np.int64)
        return _top_k_batch(
            self.data,
            self.indices,
            self.indptr,
            self.term_max,
            flat,
            offsets,
            k,
            self.n_docs,
            min(numba.get_num_threads(), len(queries)),
        )
