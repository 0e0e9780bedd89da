"""Exact top-k BM25 in plain NumPy: the first searches' scorer, while the compiled kernel loads.

The MaxScore kernel (:mod:`.topk`) is compiled with numba, and a fresh process pays for numba
before its first search: 0.5-0.6 s of imports (numba's registries, and SciPy's BLAS through
them) even with the kernel cached on disk. This scorer imports nothing but NumPy: it adds up
every posting of the query's terms, which costs the length of their lists (about 20 ms for a
query of 2.3M postings at 1M passages), so it answers the searches a process makes while the
kernel loads in the background, and the kernel takes over once loaded.

Its answers are the kernel's, float for float: each document's score is its terms' scores
summed in float64 in ascending term order (the order the kernel sums them in), ranked best
first, ties to the lower document, documents scoring 0 left out.
"""

from __future__ import annotations

import numpy as np

SPARSE_SHARE = 20
"""Below one posting in this many passages a query's documents are gathered and sorted; above
it they are summed into one array over every passage, which is faster for long lists."""


def postings(indptr: np.ndarray, terms: list[int]) -> int:
    """How many postings the query's (distinct) ``terms`` hold: this scorer's cost."""
    return sum(int(indptr[t + 1] - indptr[t]) for t in terms)


def top_k(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    terms: list[int],
    k: int,
    n_docs: int,
    *,
    dense: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(documents, scores) of the best ``k`` of ``n_docs`` for distinct ascending ``terms``.

    ``dense`` sums into one array over every passage (True) or sorts the query's documents
    (False); by default the faster for the query's size (:data:`SPARSE_SHARE`).
    """
    spans = [(int(indptr[t]), int(indptr[t + 1])) for t in terms]
    if dense is None:
        dense = SPARSE_SHARE * sum(b - a for a, b in spans) >= n_docs
    if not dense:
        docs, inverse = np.unique(
            np.concatenate([indices[a:b] for a, b in spans] or [np.empty(0, np.int32)]),
            return_inverse=True,
        )
        scores = np.zeros(len(docs))
        at = 0
        for a, b in spans:  # a term's documents are distinct: += adds each once, term by term
            scores[inverse[at : at + b - a]] += data[a:b]
            at += b - a
    else:
        docs, scores = None, np.zeros(n_docs)
        for a, b in spans:
            scores[indices[a:b]] += data[a:b]
    return _best(scores, docs, k)


def _best(scores: np.ndarray, docs: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best slots of ``scores`` (slot i is document ``docs[i]``, or i itself)."""
    if len(scores) > k:
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        slots = np.flatnonzero(scores >= kth)  # the k-th best and every tie of it
    else:
        slots = np.arange(len(scores))
    slots = slots[scores[slots] > 0]
    found = slots if docs is None else docs[slots]
    ranked = np.lexsort((found, -scores[slots]))[:k]
    return found[ranked].astype(np.int32), scores[slots][ranked].astype(np.float32)
