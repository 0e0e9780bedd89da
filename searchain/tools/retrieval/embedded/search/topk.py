"""Top-k BM25 over the compact index: a query in threads when its lists are long, or a batch.

The search itself is :mod:`.maxscore`'s compiled kernel; this module decides how a query is run.
A long query is cut into equal ranges of passages searched in threads at once (the kernel holds
no GIL), each pruning by the best k-th score any of them has found, and their results merged:
the answer a single thread gives, sooner. Threads are started for each query (and each batch)
rather than kept in a pool, whose threads a forked child would not have. A batch's threads take
its queries a few at a time, each query searched in one thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numpy as np

from searchain.tools.retrieval.embedded.postings.compact import CompactPostings
from searchain.tools.retrieval.embedded.search import maxscore
from searchain.tools.retrieval.embedded.search.lists import CompactArrays
from searchain.tools.retrieval.embedded.search.maxscore import WINDOW
from searchain.tools.retrieval.embedded.search.norms import norm_codes
from searchain.types import is_whole

BATCH_CHUNK = 8
"""Queries a thread of :meth:`TopK.search_batch` takes at a time: one call into the kernel, and
the lock taken, for eight queries."""
SPLIT = 100_000
"""Postings of a query's lists a thread of :meth:`TopK.search` is given at least: a thread
costs far less to start than searching that many postings takes."""


class TopK:
    """Top-k search over one index's compact postings; safe to call from many threads."""

    def __init__(
        self,
        postings: CompactPostings,
        window: int = WINDOW,
        threads: int | None = None,
        split: int = SPLIT,
    ) -> None:
        if not is_whole(window, 1):
            raise ValueError(f"window must be a whole number of passages, at least 1: {window!r}")
        if threads is not None and not is_whole(threads, 1):
            raise ValueError(f"threads must be a whole number, at least 1: {threads!r}")
        if not is_whole(split, 0):
            raise ValueError(f"split must be a whole number of postings, 0 or more: {split!r}")
        self.window = window
        """Passages a window of the walk spans (:data:`WINDOW`; tests take small ones)."""
        self.threads = len(os.sched_getaffinity(0)) if threads is None else threads
        """Threads one long query is searched in, each over its share of the passages."""
        self.split = split
        """Postings a thread is given at least (:data:`SPLIT`; 0: a thread a core always)."""
        self.postings = postings
        """The index's postings (what a query's lists hold is read from it)."""
        self.arrays = CompactArrays(
            np.asarray(postings.data, dtype=np.uint8),
            np.asarray(postings.words, dtype=np.uint64),
            np.asarray(postings.indptr),  # uint32 or int64: as written, never copied
            np.asarray(postings.blocks),
            np.asarray(postings.block_starts),
            np.asarray(postings.block_last, dtype=np.int32),
            np.asarray(postings.block_peak, dtype=np.float32),
            np.asarray(postings.idf, dtype=np.float32),
            *norm_codes(postings.norm),
        )

    def search(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores) of the best ``k`` documents for one query's term ids, best first.

        A query is searched in up to :attr:`threads` threads at once, one for each
        :attr:`split` postings its lists hold, each over an equal share of the passages,
        pruning by the best k-th score any of them has found: the same answer, sooner.
        """
        unique = sorted(set(terms))
        ids = np.asarray(unique, dtype=np.int64)
        parts = min(self.threads, len(self.arrays.norm_code))
        if self.split:
            parts = min(parts, self.postings.postings(unique) // self.split)
        if parts <= 1:
            return maxscore.top_k(self.arrays, ids, k, self.window)
        plan = maxscore.plan(self.arrays, ids)
        cuts = np.linspace(0, len(self.arrays.norm_code), parts + 1).astype(np.int64)
        shared = np.full(parts, -np.inf)
        found: list[tuple[np.ndarray, np.ndarray] | None] = [None] * parts

        def part(j: int) -> None:
            found[j] = maxscore.search_range(
                self.arrays, *plan, k, self.window, cuts[j], cuts[j + 1], shared, j
            )

        _in_threads(part, parts)
        docs, scores = zip(*found, strict=True)
        return maxscore.ranked(np.concatenate(docs), np.concatenate(scores), k)

    def search_batch(self, queries: list[list[int]], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, scores), one row per query, ``-1`` where a query has fewer than ``k``.

        Up to :attr:`threads` threads each take :data:`BATCH_CHUNK` queries at a time until none
        are left, so a few long queries do not hold up one thread's fixed share; a batch of fewer
        than that a thread is shared out evenly, so it too runs on every core.
        """
        unique = [sorted(set(terms)) for terms in queries]
        offsets = np.zeros(len(unique) + 1, dtype=np.int64)
        np.cumsum([len(terms) for terms in unique], out=offsets[1:])
        flat = np.asarray([t for terms in unique for t in terms], dtype=np.int64)
        docs = np.full((len(unique), k), -1, dtype=np.int32)
        scores = np.zeros((len(unique), k), dtype=np.float32)
        # A small batch is cut into a share for each thread, a large one into chunks.
        chunk = max(1, min(BATCH_CHUNK, -(-len(unique) // self.threads)))
        starts = iter(range(0, len(unique), chunk))
        taking = threading.Lock()

        def take(_: int) -> None:
            while True:
                with taking:
                    first = next(starts, None)
                if first is None:
                    return
                last = min(first + chunk, len(unique))
                maxscore.top_k_each(
                    self.arrays, flat, offsets, first, last, k, self.window, docs, scores
                )

        _in_threads(take, max(1, min(self.threads, -(-len(unique) // chunk))))
        return docs, scores


def _in_threads(work: Callable[[int], None], count: int) -> None:
    """``work(j)`` for each ``j`` below ``count`` (at least 1), 0 in this thread.

    The others run in threads of their own; once all have ended, what the first to fail raised
    is raised here.
    """
    failed: list[BaseException] = []

    def run(j: int) -> None:
        try:
            work(j)
        except BaseException as error:  # re-raised in the caller's thread
            failed.append(error)

    helpers = [threading.Thread(target=run, args=(j,)) for j in range(1, count)]
    for helper in helpers:
        helper.start()
    run(0)
    for helper in helpers:
        helper.join()
    if failed:
        raise failed[0]
