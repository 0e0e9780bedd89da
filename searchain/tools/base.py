"""The two small interfaces the graph needs from the outside world, and the passage they share.

Any object with the right method plugs in: the embedded BM25 index, Elasticsearch, a LangChain
retriever, a DPR reader, a test double. Keeping them this small is what lets tests and users swap
components without touching the graph.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Passage:
    """A retrieved passage."""

    id: str
    """Stable id in the corpus; what a citation resolves to."""
    title: str
    """Title of the source document (may be empty)."""
    text: str
    """The passage text."""
    score: float = 0.0
    """Retrieval score (BM25 or the backend's own); higher is better."""

    def as_reference(self) -> str:
        """The passage as it is shown to a model: ``title: text``."""
        return f"{self.title}: {self.text}" if self.title else self.text


@dataclass(frozen=True)
class ReaderAnswer:
    """What a reader extracted from one passage for one query."""

    answer: str
    """The answer span (empty when the reader found none)."""
    confidence: float
    """The reader's confidence, on the reader's own scale (see ``Reader.threshold``)."""
    calibrated: bool = True
    """Whether ``confidence`` was measured on that scale (a DPR logit, a span probability).
    ``False`` for an LLM reader's self-rating, or a span probability that could not be measured
    (then ``confidence`` is 0, so it never overrides the LLM)."""


@runtime_checkable
class Retriever(Protocol):
    """Query in, ranked passages out."""

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """Return up to ``k`` passages, best first."""
        ...


@runtime_checkable
class Reader(Protocol):
    """(query, passage) in, answer span and confidence out."""

    threshold: float
    """Default confidence threshold θ on this reader's scale (1.5 for DPR relevance logits)."""

    def read(self, query: str, passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Read each passage for ``query``; one answer per passage, in order."""
        ...


MAX_CONCURRENCY = 8
"""Calls in flight at once when a whole chain is searched or read by a one-at-a-time backend."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    """One pool for the process: a chain's calls start no threads of their own."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(MAX_CONCURRENCY, thread_name_prefix="searchain-io")
        return _pool


def search_many(retriever: Retriever, queries: Sequence[str], k: int = 1) -> list[list[Passage]]:
    """Search every query: one ``search_batch`` call when the backend has one, else concurrently.

    The embedded index scores a batch on every core; a backend with ``search`` alone (a
    LangChain retriever, a remote service) gets its calls run on a thread pool.
    """
    if not queries:
        return []
    batch = getattr(retriever, "search_batch", None)
    if batch is not None:
        return list(batch(list(queries), k=k))
    return list(_shared_pool().map(lambda query: retriever.search(query, k=k), queries))


def read_many(
    reader: Reader, queries: Sequence[str], passages: Sequence[Passage]
) -> list[ReaderAnswer]:
    """Read ``passages[i]`` for ``queries[i]``: one batch when the reader can, else concurrently.

    The bundled readers take the pairs in one ``read_pairs`` batch; any other reader gets one
    ``read`` call per pair, run on a thread pool.
    """
    if not queries:
        return []
    pairs = getattr(reader, "read_pairs", None)
    if pairs is not None:
        return list(pairs(list(queries), list(passages)))
    pairs_in = zip(queries, passages, strict=True)
    batches = _shared_pool().map(lambda pair: reader.read(pair[0], [pair[1]]), pairs_in)
    return [answers[0] for answers in batches]


def lookup(record: Mapping[str, Any], path: str) -> Any:
    """A field of a document: a flat key, or a dotted path into nested objects; ``None`` if absent.

    Search backends return documents as nested JSON (Elasticsearch's ``_source``, a LangChain
    document's ``metadata``), and users name their fields as dotted paths (``meta.title``).
    """
    if path in record:
        return record[path]
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value
