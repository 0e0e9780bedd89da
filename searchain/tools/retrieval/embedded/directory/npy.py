"""``np.load`` that many threads may call at once, on every Python this package supports.

numpy reads a ``.npy`` header with ``ast.literal_eval``, and CPython 3.11 keeps the AST
converter's recursion depth in interpreter-wide state: two threads parsing at once can make one
raise ``SystemError: AST constructor recursion depth mismatch`` (3.12 moved it to the thread).
A server opens indexes from many threads, so every ``.npy`` read here goes through one lock. It
guards only the header and the mapping, or a small array's read: microseconds an index.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

_LOCK = threading.Lock()


def load(path: Path, *, mmap: bool = False) -> np.ndarray:
    """The array at ``path``, mapped read-only from disk with ``mmap``, else read."""
    with _LOCK:
        return np.load(path, mmap_mode="r" if mmap else None)
