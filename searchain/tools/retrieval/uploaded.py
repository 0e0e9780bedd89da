"""A thread's own files as a retriever, alone or together with the deployment's index.

The files a person sends in a thread (a few thousand passages at most, bounded per thread) are
searched by BM25 held in memory, built once per thread and set of files and shared by that
thread's runs only (:func:`files_retriever`). Together with the index, the two rankings are
fused rank by rank, the files' first (:class:`Together`): BM25 scores from two collections are
not comparable (a term's weight depends on its collection), and reciprocal-rank fusion of two
disjoint rankings is exactly this interleaving. So the top passage is the files' best match for
any query that shares a word with them, and the index's where none does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from searchain.cache import load_once
from searchain.documents.uploads import Upload
from searchain.tools.retrieval.batch import search_many
from searchain.tools.retrieval.embedded.analysis.tokenizer import Tokenizer
from searchain.tools.retrieval.scoring import bm25_idf, bm25_norm
from searchain.types import Passage, Retriever


class PassagesBM25:
    """BM25 over passages held in memory, scored as the embedded index scores (bm25s's Lucene)."""

    def __init__(self, passages: Sequence[Passage], k1: float = 1.5, b: float = 0.75) -> None:
        self.passages = list(passages)
        self.tokenize = Tokenizer("stem")
        counts = [Counter(self.tokenize(f"{p.title} {p.text}")) for p in self.passages]
        lengths = np.array([sum(c.values()) for c in counts], dtype=np.int64)
        norm = bm25_norm(lengths, k1, b) if counts else lengths
        postings: dict[str, list[tuple[int, int]]] = {}
        for row, count in enumerate(counts):
            for term, tf in count.items():
                postings.setdefault(term, []).append((row, tf))
        idf = bm25_idf(np.array([len(p) for p in postings.values()]), len(self.passages))
        self.terms: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for (term, pairs), weight in zip(postings.items(), idf, strict=True):
            rows = np.array([r for r, _ in pairs], dtype=np.int64)
            tf = np.array([t for _, t in pairs], dtype=np.float32)
            self.terms[term] = (rows, weight * tf / (tf + norm[rows]))

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """The ``k`` best passages sharing a term with ``query``, best first (ties: in order)."""
        scores = np.zeros(len(self.passages))
        for term in set(self.tokenize(query)):
            if term in self.terms:
                rows, weights = self.terms[term]
                scores[rows] += weights
        ranked = np.argsort(-scores, kind="stable")[:k]
        return [_scored(self.passages[i], float(scores[i])) for i in ranked if scores[i] > 0]


def _scored(passage: Passage, score: float) -> Passage:
    return Passage(passage.id, passage.title, passage.text, score, passage.source)


class Together:
    """The files' ranking and the index's fused rank by rank, the files' first."""

    def __init__(self, files: Retriever, index: Retriever) -> None:
        self.files = files
        self.index = index

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """``k`` passages: the files' best, the index's best, the files' second..."""
        return _fused(self.files.search(query, k=k), self.index.search(query, k=k), k)

    def search_batch(self, queries: Sequence[str], k: int = 5) -> list[list[Passage]]:
        """Each query's :meth:`search`, the index searched in one batch where it can be."""
        index = search_many(self.index, queries, k=k)
        return [
            _fused(self.files.search(q, k=k), i, k) for q, i in zip(queries, index, strict=True)
        ]


def _fused(files: list[Passage], index: list[Passage], k: int) -> list[Passage]:
    paired = [p for pair in zip(files, index, strict=False) for p in pair]
    shorter = len(paired) // 2
    return (paired + files[shorter:] + index[shorter:])[:k]


def files_retriever(uploads: Sequence[Upload], owner: str | None) -> PassagesBM25:
    """BM25 over ``uploads``' passages, built once per thread and set of files.

    ``owner`` is the thread: keyed by the files alone, one user's retriever served another's
    thread that sent the same file, and how fast a question came back told whether anyone had.
    None (a run of no thread) builds it anew, cached nowhere.
    """

    def build() -> PassagesBM25:
        return PassagesBM25([p for u in uploads for p in u.passages])

    if owner is None:
        return build()
    return load_once(("uploaded files", owner, tuple((u.name, u.sha256) for u in uploads)), build)
