"""Arrays open from many threads at once (CI's floors run found the race, in a server's pattern)."""

from __future__ import annotations

import gc
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import searchain
from searchain.tools.retrieval.embedded.directory import npy


class _Cycle:
    def __del__(self) -> None:  # a finalizer: the collector runs Python code, threads switch
        pass


@pytest.fixture
def busy_interpreter() -> Iterator[None]:
    """Threads switching as often as they can, and the collector running all the time: what
    makes CPython 3.11's interpreter-wide AST state show up within a few thousand loads."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    done = threading.Event()

    def churn() -> None:
        while not done.is_set():
            cycle = _Cycle()
            cycle.self = cycle  # type: ignore[attr-defined]

    churner = threading.Thread(target=churn)
    sys.setswitchinterval(1e-6)
    gc.set_threshold(5)
    churner.start()
    try:
        yield
    finally:
        done.set()
        churner.join()
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)


def test_four_threads_open_arrays_at_once_without_a_failure(tmp_path, busy_interpreter):
    """Unlocked, ``np.load`` here failed 3 threads of 4 on Python 3.11 (SystemError: AST
    constructor recursion depth mismatch): the header is parsed with ``ast.literal_eval``."""
    path = tmp_path / "a.npy"
    np.save(path, np.arange(10, dtype=np.int64))
    failures: list[BaseException] = []

    def opener() -> None:
        for _ in range(2000):
            try:
                assert int(npy.load(path, mmap=True)[9]) == 9
            except BaseException as exc:  # every failure is the finding
                failures.append(exc)
                return

    threads = [threading.Thread(target=opener) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_every_array_the_package_reads_goes_through_the_lock():
    package = Path(searchain.__file__).parent
    unlocked = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "npy.py" and re.search(r"\bnp\.load\(|numpy\.load\(", path.read_text())
    ]
    assert unlocked == []


def test_a_small_array_is_read_into_memory_without_mmap(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(3))
    array = npy.load(tmp_path / "a.npy")
    assert not isinstance(array, np.memmap) and array.tolist() == [0, 1, 2]
    assert isinstance(npy.load(tmp_path / "a.npy", mmap=True), np.memmap)
