"""Load heavy objects (models, indexes, clients) once per process and share them across threads."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_key_locks: dict[Hashable, threading.Lock] = {}
_objects: dict[Hashable, Any] = {}


def load_once(key: Hashable, factory: Callable[[], T]) -> T:
    """Return the object cached under ``key``, building it with ``factory`` on first use.

    A lock per key means two threads asking for the same model build it once, while different
    models still load in parallel. A factory that raises caches nothing, so a fixed path can be
    retried.
    """
    with _lock:
        if key in _objects:
            return _objects[key]
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        if key not in _objects:
            _objects[key] = factory()
        return _objects[key]


def clear() -> None:
    """Forget every cached object (tests use it to measure cold loads)."""
    with _lock:
        _objects.clear()
        _key_locks.clear()
