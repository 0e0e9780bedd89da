"""Load heavy objects (models, indexes, clients) once per process and share them across threads.

The cache is bounded, so no sequence of requests grows a process without end: past
``SEARCHAIN_CACHE_OBJECTS`` objects (default 32), or once the process's resident memory passes
``SEARCHAIN_CACHE_MEMORY_MB`` (default: no memory bound), the least recently used objects are
dropped (an object still in use lives on with its users and is built again on the next miss).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

OBJECTS_ENV = "SEARCHAIN_CACHE_OBJECTS"
MEMORY_ENV = "SEARCHAIN_CACHE_MEMORY_MB"

_lock = threading.Lock()
_key_locks: dict[Hashable, threading.Lock] = {}
_objects: OrderedDict[Hashable, Any] = OrderedDict()


def load_once(key: Hashable, factory: Callable[[], T]) -> T:
    """Return the object cached under ``key``, building it with ``factory`` on first use.

    A lock per key means two threads asking for the same model build it once, while different
    models still load in parallel. A factory that raises caches nothing, so a fixed path can be
    retried.
    """
    with _lock:
        if key in _objects:
            _objects.move_to_end(key)
            return _objects[key]
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        with _lock:
            if key in _objects:
                return _objects[key]
        built = factory()
        with _lock:
            _objects[key] = built
            _evict()
        return built


def _evict() -> None:
    """Drop the least recently used objects past the count bound, or while over the memory one."""
    limit = max(1, int(os.environ.get(OBJECTS_ENV) or 32))
    memory = float(os.environ.get(MEMORY_ENV) or 0) * 2**20
    while len(_objects) > limit or (memory and len(_objects) > 1 and resident_bytes() > memory):
        oldest, _ = _objects.popitem(last=False)
        _key_locks.pop(oldest, None)


def resident_bytes() -> int:
    """The resident memory (``VmRSS``) of the process, 0 where ``/proc`` does not tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cached() -> int:
    """How many objects the cache holds now."""
    with _lock:
        return len(_objects)


def clear() -> None:
    """Forget every cached object (tests use it to measure cold loads)."""
    with _lock:
        _objects.clear()
        _key_locks.clear()
