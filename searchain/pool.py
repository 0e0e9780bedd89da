"""One thread pool for the process, for backends that answer one call at a time.

A chain's searches and readings go out together (parallel traversal); a retriever or reader with
no batch method of its own gets its calls run here, so no run starts threads of its own.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

MAX_CONCURRENCY = 8
"""Calls in flight at once when a whole chain is searched or read by a one-at-a-time backend."""

_pool: ThreadPoolExecutor | None = None

_pool_lock = threading.Lock()


def shared_pool() -> ThreadPoolExecutor:
    """One pool for the process: a chain's calls start no threads of their own."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(MAX_CONCURRENCY, thread_name_prefix="searchain-io")
        return _pool
