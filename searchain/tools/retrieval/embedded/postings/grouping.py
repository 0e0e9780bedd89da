"""Postings grouped by term in linear time, compiled with numba: the build's two sorts.

A segment's tokens arrive passage after passage (term ids in text order); the matrix needs them by
term, then passage, with each passage's term frequency. Sorting 64-bit (term, passage) keys costs
O(n log n), on the one core the build's coordinating process has. A counting sort by term is two
passes over the tokens, and because passages are visited in order it leaves each term's passages
ascending, so a term's repeats in one passage sit side by side and fold into a frequency as they are
placed. Merging segments into term ranges is the same placement, run by run. Kernels compile on
first use and are cached on disk (numba's ``cache=True``), as the search kernels are.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def count_postings(
    tokens: np.ndarray, lengths: np.ndarray, first_doc: int, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group one segment's tokens by term: ``(run_terms, starts, docs, tfs)``.

    ``tokens`` are term ids, passage after passage; ``lengths`` each passage's token count;
    passages are numbered from ``first_doc``. Term ``run_terms[j]`` occurs in passages
    ``docs[starts[j]:starts[j + 1]]`` (ascending), ``tfs`` times each; every term id is below
    ``n_terms``.
    """
    counts = np.zeros(n_terms + 1, np.int64)
    for t in tokens:
        counts[t + 1] += 1
    for t in range(n_terms):
        counts[t + 1] += counts[t]
    cursor = counts[:n_terms].copy()
    docs = np.empty(len(tokens), np.int32)
    tfs = np.empty(len(tokens), np.float32)
    i = 0
    for d in range(len(lengths)):
        doc = first_doc + d
        for _ in range(lengths[d]):
            t = tokens[i]
            i += 1
            start, at = counts[t], cursor[t]
            if at > start and docs[at - 1] == doc:
                tfs[at - 1] += 1  # the same term again in this passage
            else:
                docs[at] = doc
                tfs[at] = 1
                cursor[t] = at + 1
    present = 0
    for t in range(n_terms):
        present += cursor[t] > counts[t]
    run_terms = np.empty(present, np.int32)
    starts = np.empty(present + 1, np.int64)
    j = 0
    out = 0
    for t in range(n_terms):  # close the gaps left by repeats: postings end to end
        n = cursor[t] - counts[t]
        if n:
            run_terms[j] = t
            starts[j] = out
            for k in range(counts[t], counts[t] + n):  # forward: the copy never overtakes
                docs[out] = docs[k]
                tfs[out] = tfs[k]
                out += 1
            j += 1
    starts[present] = out
    return run_terms, starts, docs[:out], tfs[:out]


@numba.njit(cache=True, nogil=True)
def place_runs(
    run_terms: np.ndarray,
    starts: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
    cursor: np.ndarray,
    first_term: int,
    out_docs: np.ndarray,
    out_tfs: np.ndarray,
) -> None:
    """Copy one segment's runs of a term range to where they belong in the merged range.

    ``docs``/``tfs`` hold the segment's postings of ``run_terms`` (``starts`` offsets into them,
    from 0); ``cursor[t - first_term]`` is where term ``t``'s next postings go, advanced as they
    are placed. Segments placed in order keep each term's passages ascending.
    """
    for j in range(len(run_terms)):
        t = run_terms[j] - first_term
        n = starts[j + 1] - starts[j]
        at = cursor[t]
        out_docs[at : at + n] = docs[starts[j] : starts[j + 1]]
        out_tfs[at : at + n] = tfs[starts[j] : starts[j + 1]]
        cursor[t] = at + n


@numba.njit(cache=True, nogil=True)
def merge_postings(
    indptr: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
    remap: np.ndarray,
    run_terms: np.ndarray,
    starts: np.ndarray,
    new_docs: np.ndarray,
    new_tfs: np.ndarray,
    n_terms: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An index's postings renumbered and merged with new ones: ``(indptr, docs, tfs)``.

    The old postings (CSC: term ``t``'s passages ``docs[indptr[t]:indptr[t + 1]]``, ascending)
    are renumbered by ``remap`` (-1: removed, dropped); new term ``run_terms[j]``'s passages are
    ``new_docs[starts[j]:starts[j + 1]]``, already numbered and ascending. Each term's merged
    list stays ascending, because ``remap`` keeps the old passages' order. One pass, no
    temporaries beyond the output.
    """
    out_indptr = np.zeros(n_terms + 1, np.int64)
    out_docs = np.empty(len(docs) + len(new_docs), np.int32)
    out_tfs = np.empty(len(docs) + len(new_docs), np.uint32)
    n_old = len(indptr) - 1
    j = 0
    at = 0
    for t in range(n_terms):
        i, end = 0, 0
        if t < n_old:
            i, end = indptr[t], indptr[t + 1]
        k, stop = 0, 0
        if j < len(run_terms) and run_terms[j] == t:
            k, stop = starts[j], starts[j + 1]
            j += 1
        while i < end or k < stop:
            old = remap[docs[i]] if i < end else -1
            if i < end and old < 0:
                i += 1  # a removed passage
            elif k < stop and (i >= end or new_docs[k] < old):
                out_docs[at] = new_docs[k]
                out_tfs[at] = new_tfs[k]
                at += 1
                k += 1
            else:
                out_docs[at] = old
                out_tfs[at] = tfs[i]
                at += 1
                i += 1
        out_indptr[t + 1] = at
    return out_indptr, out_docs[:at], out_tfs[:at]
