"""Exact top-k BM25 in plain NumPy, every posting added: the reference the faster scorers match.

The MaxScore kernel (:mod:`.topk`) is compiled with numba, and a fresh process pays for numba before
its first search: its imports (numba's registries, and SciPy's BLAS through them) take longer than a
search, even with the kernel cached on disk. What a fresh process searches with meanwhile imports
nothing but NumPy: :mod:`.first_search`, which skips what MaxScore can skip and sums the rest here.
This module adds up every posting of the query's terms, decoded from their blocks in NumPy, which
costs the length of their lists.

Its answers are the kernel's, float for float: each document's score is its terms' scores
summed in float64 in ascending term order (the order the kernel sums them in), ranked best
first, ties to the lower document, documents scoring 0 left out.
"""

from __future__ import annotations

import numpy as np

from searchain.tools.retrieval.embedded.postings.compact import CompactPostings

SPARSE_SHARE = 20
"""Below one posting in this many passages a query's documents are gathered and sorted; above
it they are summed into one array over every passage, which is faster for long lists."""


def top_k(
    postings: CompactPostings, terms: list[int], k: int, *, dense: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(documents, scores) of the best ``k`` passages for distinct ascending ``terms``.

    ``dense`` sums into one array over every passage (True) or sorts the query's passages
    (False); by default the faster for the query's size (:data:`SPARSE_SHARE`).
    """
    lists = [postings.scores(t) for t in terms]
    return best(*summed(lists, len(postings.norm), dense=dense), k)


def summed(
    lists: list[tuple[np.ndarray, np.ndarray]], n_docs: int, *, dense: bool | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """(scores, documents): each passage's scores in ``lists`` summed in float64, list after list.

    Sparse, the passages the lists hold, ascending; dense (documents None), every passage's slot.
    """
    if dense is None:
        dense = SPARSE_SHARE * sum(len(docs) for docs, _ in lists) >= n_docs
    if dense:
        scores = np.zeros(n_docs)
        for d, s in lists:
            scores[d] += s
        return scores, None
    docs, inverse = np.unique(
        np.concatenate([d for d, _ in lists] or [np.empty(0, np.int64)]), return_inverse=True
    )
    scores = np.zeros(len(docs))
    at = 0
    for d, s in lists:  # a term's passages are distinct: += adds each once, term by term
        scores[inverse[at : at + len(d)]] += s
        at += len(d)
    return scores, docs


def best(scores: np.ndarray, docs: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray]:
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
