"""BM25's postings built out of core: segments on disk, merged within a memory budget.

Scores are bm25s's (Lucene variant): ``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``; the index keeps each term's list of passages
(ascending) with their term frequencies, compressed in blocks (:mod:`.compact`), and a search
computes the scores.

A corpus the size of Wikipedia (21M passages, about a billion postings) does not fit in memory
as one sort, so passages are counted in *segments*: once a segment's tokens fill the budget (or
:data:`MAX_SEGMENT`), they are grouped by term, then passage — a counting sort, linear in the
tokens (:mod:`.postings`) — and written to disk (8 bytes a posting, and 12 bytes a term the
segment holds). Scores need every passage's length and every term's document frequency, known
only at the end; then the postings are written term range by term range: each range's postings
are read from every segment and placed term by term (segments hold consecutive passages, so
placing them in order keeps passages ascending), encoded, and appended to the output files.
Memory stays within the budget whatever the corpus size (a segment may run over it by one batch
of passages, :data:`.workers.BATCH`), apart from the vocabulary (:class:`.scan.wordscan.TermIds`:
about 40 bytes a distinct word) and 4 bytes a passage (its length), and the passage store's
block sizes.

Segments and ranges are capped, not sized to the budget: larger ones are no faster, and the
memory they would take would be the build's peak (``benchmarks/build_memory.py``).
"""

from __future__ import annotations

import itertools
import os
from array import array
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from searchain.tools.retrieval.embedded.termdict.vocabulary import write_vocabulary
from searchain.tools.retrieval.scoring import bm25_idf, bm25_norm

BYTES_PER_TOKEN = 16
"""Peak working memory per buffered token while a segment is counted: the batches' term ids,
their concatenation, and the grouped passages and frequencies."""
BYTES_PER_POSTING = 40
"""Peak working memory per posting while a term range is merged and scored."""
MAX_SEGMENT = 1 << 22
"""Tokens counted into one segment at most, whatever the budget: larger segments are no faster,
and counting one is the peak of the build while its workers run."""
MAX_RANGE = 1 << 22
"""Postings merged at a time at most, whatever the budget: larger ranges are no faster. Two
are held at once, one encoded while the next is merged, which writes the postings faster than
larger ranges one after the other."""
MIN_MEMORY = 1 << 20


class MemoryBudgetError(ValueError):
    """A memory budget too small to build with."""


def parse_size(text: str) -> int:
    """Bytes in ``"4GiB"``, ``"512MiB"``, ``"2G"``, ``"1500M"`` or a plain number of bytes."""
    units = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    raw = text.strip().lower().removesuffix("b").removesuffix("i")
    number, unit = raw.rstrip("kmgt"), raw[len(raw.rstrip("kmgt")) :]
    try:
        value = float(number) * units[unit]
    except (ValueError, KeyError):
        raise MemoryBudgetError(
            f"cannot read the size {text!r}: write it like 4GiB, 512MiB or 2G"
        ) from None
    return int(value)


def default_memory() -> int:
    """A quarter of the machine's memory, at most 4 GiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 16 << 30
    return max(MIN_MEMORY, min(4 << 30, total // 4))


class PostingsBuilder:
    """Counts a stream of tokenised passages into segments under ``workdir``; see the module."""

    def __init__(self, workdir: Path, memory: int | None = None) -> None:
        memory = default_memory() if memory is None else memory
        if memory < MIN_MEMORY:
            raise MemoryBudgetError(
                f"a memory budget of {memory:,} bytes is too small to build an index: give at "
                f"least {MIN_MEMORY >> 20} MiB"
            )
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.memory = memory
        from searchain.tools.retrieval.embedded.analysis.wordscan import (
            TermIds,  # numba: builds only
        )

        self.vocab = TermIds()
        """Term -> id, numbered in order of first appearance (:class:`.encode.TermMap` adds)."""
        self.segments = 0
        """Segments written so far."""
        self._tokens_per_segment = max(1, min(memory // BYTES_PER_TOKEN, MAX_SEGMENT))
        self._postings_per_range = max(1, min(memory // (2 * BYTES_PER_POSTING), MAX_RANGE))
        self._chunks: list[np.ndarray] = []
        self._buffered = 0
        self._lengths = array("i")
        self._segment_start = 0
        self._df = np.zeros(0, dtype=np.int64)

    @property
    def pending_segments(self) -> int:
        """Segments written, and the one still in memory if it holds a passage."""
        return self.segments + (self.n_docs > self._segment_start)

    @property
    def n_docs(self) -> int:
        """Passages added so far."""
        return len(self._lengths)

    def add(self, tokens: np.ndarray, lengths: np.ndarray) -> None:
        """Add passages: their ``tokens`` (ids of :attr:`vocab`'s terms), ``lengths`` each."""
        self._chunks.append(tokens)
        self._buffered += len(tokens)
        self._lengths.frombytes(np.ascontiguousarray(lengths, np.int32).tobytes())
        if self._buffered >= self._tokens_per_segment:
            self._flush()

    def _segment(self, i: int, part: str) -> Path:
        return self.workdir / f"segment-{i:05d}.{part}"

    def _flush(self) -> None:
        if self.n_docs == self._segment_start:
            return
        lengths = np.frombuffer(self._lengths, dtype=np.int32)[self._segment_start :]
        tokens = np.concatenate(self._chunks) if self._chunks else np.empty(0, np.int32)
        self._chunks, self._buffered = [], 0
        from searchain.tools.retrieval.embedded.postings.grouping import (
            count_postings,  # numba: builds only
        )

        run_terms, starts, docs, tfs = count_postings(
            tokens, lengths, self._segment_start, len(self.vocab)
        )
        del tokens
        if len(self._df) < len(self.vocab):
            self._df = np.concatenate(
                [self._df, np.zeros(len(self.vocab) - len(self._df), np.int64)]
            )
        self._df[run_terms] += np.diff(starts)
        i = self.segments
        docs.tofile(self._segment(i, "docs"))
        tfs.tofile(self._segment(i, "tfs"))
        run_terms.tofile(self._segment(i, "terms"))
        starts.tofile(self._segment(i, "starts"))
        self.segments += 1
        self._segment_start = self.n_docs

    def lengths(self) -> np.ndarray:
        """Every passage's length in tokens, in order (int32)."""
        return np.frombuffer(self._lengths, dtype=np.int32)

    def write(self, directory: Path, k1: float, b: float) -> None:
        """Write the compact postings (:mod:`.compact`) and the vocabulary to ``directory``."""
        from searchain.tools.retrieval.embedded.postings.writer import (
            PostingsWriter,  # numba: builds only
        )

        self._flush()
        n_docs, n_terms = self.n_docs, len(self.vocab)
        df = np.zeros(n_terms, dtype=np.int64)
        df[: len(self._df)] = self._df
        writer = PostingsWriter(
            directory, df, bm25_idf(df, n_docs), bm25_norm(self.lengths(), k1, b)
        )
        bounds = self._ranges(writer.indptr)
        cuts = [self._cuts(i, bounds) for i in range(self.segments)]
        # Three things at once, on the cores the workers (done by now) leave: the vocabulary is
        # written (Python: hashing every term), a term range's postings are encoded, and the next
        # range is merged (both compiled code, without the GIL).
        with ThreadPoolExecutor(max_workers=2) as beside:
            vocabulary = beside.submit(write_vocabulary, directory, self.vocab.utf8())
            encoding: Future[None] | None = None
            for r, (t0, t1) in enumerate(itertools.pairwise(bounds)):
                docs, tfs = self._merge_range([c[r : r + 2] for c in cuts], writer.indptr, t0, t1)
                if encoding is not None:
                    encoding.result()  # ranges are written in order
                encoding = beside.submit(writer.add, t0, t1, docs, tfs)
                del docs, tfs
            if encoding is not None:
                encoding.result()
            writer.close()
            vocabulary.result()
        for i in range(self.segments):
            for part in ("docs", "tfs", "terms", "starts"):
                self._segment(i, part).unlink()

    def _ranges(self, indptr: np.ndarray) -> list[int]:
        """Where each term range starts, then the vocabulary's end.

        A range is the longest run of terms whose postings fit :attr:`_postings_per_range`
        (at least one term).
        """
        n_terms = len(indptr) - 1
        bounds = [0]
        while bounds[-1] < n_terms:
            t0 = bounds[-1]
            t1 = int(np.searchsorted(indptr, indptr[t0] + self._postings_per_range, "right")) - 1
            bounds.append(min(max(t1, t0 + 1), n_terms))
        return bounds

    def _cuts(self, i: int, bounds: list[int]) -> np.ndarray:
        """Where in segment ``i``'s runs each term range starts (and the last one ends).

        One segment's run table is read at a time: a corpus of a thousand segments does not
        hold a thousand tables while it merges.
        """
        run_terms = np.fromfile(self._segment(i, "terms"), np.int32)
        return np.searchsorted(run_terms, bounds)

    def _merge_range(
        self, cuts: list[np.ndarray], indptr: np.ndarray, t0: int, t1: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Passages and frequencies of terms ``t0 <= t < t1``, by term, passages ascending.

        ``cuts[i]`` is where the range's runs start and end in segment ``i``'s run table.
        """
        from searchain.tools.retrieval.embedded.postings.grouping import (
            place_runs,  # numba: builds only
        )

        n = int(indptr[t1] - indptr[t0])
        docs, tfs = np.empty(n, np.int32), np.empty(n, np.float32)
        cursor = indptr[t0:t1] - indptr[t0]
        for i, (lo, hi) in enumerate(cuts):
            if lo == hi:
                continue
            run_terms = np.fromfile(self._segment(i, "terms"), np.int32, hi - lo, offset=4 * lo)
            starts = np.fromfile(self._segment(i, "starts"), np.int64, hi - lo + 1, offset=8 * lo)
            start, end = int(starts[0]), int(starts[-1])
            place_runs(
                run_terms,
                starts - start,
                np.fromfile(self._segment(i, "docs"), np.int32, end - start, offset=4 * start),
                np.fromfile(self._segment(i, "tfs"), np.float32, end - start, offset=4 * start),
                cursor,
                t0,
                docs,
                tfs,
            )
        return docs, tfs
