"""Many queries at once: a backend's own batch search, or its one-query search on the pool."""

from __future__ import annotations

from collections.abc import Sequence

from searchain.pool import shared_pool
from searchain.types import Passage, Retriever


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
    return list(shared_pool().map(lambda query: retriever.search(query, k=k), queries))
