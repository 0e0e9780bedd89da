"""The process-wide cache of heavy objects is bounded by count and by memory."""

from __future__ import annotations

import threading

from searchain import cache


def test_no_sequence_of_keys_grows_the_cache_past_its_bound(monkeypatch):
    """Issue 30, case 2: every distinct spec (`local?n_ctx=2049`, `…2050`, …) stayed for good."""
    monkeypatch.setenv(cache.OBJECTS_ENV, "4")
    cache.clear()
    built = []
    for n in range(50):
        assert cache.load_once(("spec", n), lambda n=n: built.append(n) or n) == n
        assert cache.cached() <= 4
    assert cache.load_once(("spec", 49), lambda: -1) == 49  # the newest are kept
    assert cache.load_once(("spec", 0), lambda: -1) == -1  # the oldest was dropped: rebuilt
    assert built == list(range(50))
    cache.clear()


def test_recently_used_objects_outlive_newer_unused_ones(monkeypatch):
    monkeypatch.setenv(cache.OBJECTS_ENV, "2")
    cache.clear()
    cache.load_once("a", lambda: "A")
    cache.load_once("b", lambda: "B")
    assert cache.load_once("a", lambda: "rebuilt") == "A"  # used: now the newest
    cache.load_once("c", lambda: "C")
    assert cache.load_once("a", lambda: "rebuilt") == "A"
    assert cache.load_once("b", lambda: "rebuilt") == "rebuilt"
    cache.clear()


def test_over_the_memory_bound_only_the_newest_object_stays(monkeypatch):
    monkeypatch.setenv(cache.MEMORY_ENV, "1")  # 1 MiB: this process is always over it
    cache.clear()
    for name in "abc":
        cache.load_once(name, lambda name=name: name)
    assert cache.cached() == 1 and cache.load_once("c", lambda: "rebuilt") == "c"
    assert cache.resident_bytes() > 2**20
    cache.clear()


def test_one_key_is_built_once_by_threads_asking_together():
    cache.clear()
    barrier = threading.Barrier(4)
    calls = []

    def build():
        calls.append(1)
        return object()

    def ask(out, i):
        barrier.wait()
        out[i] = cache.load_once("shared", build)

    results: list = [None] * 4
    threads = [threading.Thread(target=ask, args=(results, i)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and all(r is results[0] for r in results)
    cache.clear()
