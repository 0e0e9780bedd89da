"""Exact top-k BM25 in NumPy with MaxScore's pruning: what a fresh process searches with.

A fresh process answers its first searches in NumPy while the compiled kernel loads (numba's imports
alone take longer than such a search). Adding up every posting of the query's terms
(:mod:`.exhaustive`) costs the length of their lists, and a question's stop words hold nearly all of
them: the first benchmark question at 1M passages holds 2.1M postings, 1.9M of them in "the" and
"in", whose scores are at most 0.054 where its other words' reach 1.9-4.5.

So, as MaxScore does (Turtle & Flood 1995): terms are read whole from the highest bound (their
blocks' highest score) down, until those left could not together lift a passage to the k-th
best score of any one list read. The passages read are the candidates. Before each term left is
read, the candidates whose score so far plus the bounds left falls short of the k-th best score
so far are dropped, and the term is read only in the blocks that may hold a candidate (by each
block's last passage). The candidates left are scored again, their terms summed in float64 in
ascending term order, so the answer is the exhaustive sum's and the kernel's, float for float
(ties to the lower passage). The bounds carry the kernel's margin for float rounding
(:data:`.compact.MARGIN`), so a dropped passage can never tie.
"""

from __future__ import annotations

import numpy as np

from searchain.tools.retrieval.embedded.postings.compact import BLOCK, MARGIN, CompactPostings
from searchain.tools.retrieval.embedded.search.exhaustive import best, summed

Postings = tuple[np.ndarray, np.ndarray]
"""A list's passages (ascending) and their scores."""


def top_k(
    postings: CompactPostings, terms: list[int], k: int, budget: int | None = None
) -> Postings | None:
    """(documents, scores) of the best ``k`` passages for distinct ascending ``terms``.

    ``budget``: the most postings to read; None if the query needs more (then the kernel,
    whose pruning is finer, answers it sooner than NumPy would).
    """
    peaks = [postings.block_peak[postings.blocks[t] : postings.blocks[t + 1]] for t in terms]
    share, slack = MARGIN
    bounds = [float(p.max()) * (1.0 + share) + slack if len(p) else 0.0 for p in peaks]
    # A term of no posting adds nothing: every term left to probe has a bound of 1e-6 or more.
    left = sorted((i for i in range(len(terms)) if len(peaks[i])), key=lambda i: -bounds[i])
    lists: dict[int, Postings] = {}
    floor = 0.0  # at most the k-th best score
    spent = 0
    while left and sum(bounds[i] for i in left) >= floor:
        i = left.pop(0)
        spent += postings.postings([terms[i]])
        if budget is not None and spent > budget:
            return None
        lists[i] = postings.scores(terms[i])
        if len(lists[i][1]) >= k:  # a list's passages are distinct: its k-th best is a floor
            floor = max(floor, float(np.partition(lists[i][1], -k)[-k]))
    if not left:
        return best(*summed([lists[i] for i in sorted(lists)], len(postings.norm)), k)
    docs, partial = _union(list(lists.values()))
    for n, i in enumerate(left):
        if len(partial) >= k:
            floor = max(floor, float(np.partition(partial, -k)[-k]))
        keep = partial + sum(bounds[j] for j in left[n:]) >= floor
        docs, partial = docs[keep], partial[keep]
        chosen = _blocks_holding(postings, terms[i], docs)
        spent += BLOCK * len(chosen)
        if budget is not None and spent > budget:
            return None
        lists[i] = postings.scores(terms[i], chosen)
        partial += _scores_of(lists[i], docs)
    scores = np.zeros(len(docs))
    for i in sorted(lists):  # ascending term order, as the kernel and the exhaustive sum add
        scores += _scores_of(lists[i], docs)
    return best(scores, docs, k)


def _union(lists: list[Postings]) -> tuple[np.ndarray, np.ndarray]:
    """The passages ``lists`` hold (ascending), and their scores summed in float64 (to prune by).

    Sorted, not summed into a slot for every passage: the lists are each ascending, so a stable
    sort merges their runs, in less time than summing them into a slot for each of millions of
    passages and finding the filled ones took.
    """
    docs = np.concatenate([d for d, _ in lists])
    order = np.argsort(docs, kind="stable")
    docs = docs[order]
    scores = np.concatenate([s for _, s in lists]).astype(np.float64)[order]
    first = np.flatnonzero(np.diff(docs, prepend=-1))
    return docs[first], np.add.reduceat(scores, first)


def _blocks_holding(postings: CompactPostings, t: int, docs: np.ndarray) -> np.ndarray:
    """Which of term ``t``'s blocks may hold the passages ``docs`` (ascending), each once."""
    last = postings.block_last[postings.blocks[t] : postings.blocks[t + 1]]
    block = np.searchsorted(last, docs)  # the one block each may be in: ascending
    block = block[block < len(last)]
    return block[np.diff(block, prepend=-1) > 0]  # not np.unique: it imports numpy.ma


def _scores_of(held: Postings, docs: np.ndarray) -> np.ndarray:
    """The scores ``held`` gives the passages ``docs`` (ascending), 0 where it has none."""
    found, scores = held
    out = np.zeros(len(docs), np.float32)
    if len(found):
        at = np.minimum(np.searchsorted(found, docs), len(found) - 1)
        hit = found[at] == docs
        out[hit] = scores[at[hit]]
    return out
