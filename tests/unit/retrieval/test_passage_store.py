"""The passage store: blocks kept by an update are copied as they are, and read back in order."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.embedded.store.passages import (
    FIRSTS,
    PER_BLOCK,
    PassageStore,
    PassageStoreWriter,
)


def line(n: int) -> bytes:
    return b'{"id": "p%d", "title": "t", "text": "passage number %d"}\n' % (n, n)


def written(directory: Path, steps: list, source: PassageStore | None = None) -> PassageStore:
    """A store of ``steps``: ``("add", first, count)`` new lines, ``("keep", start, stop)``
    passages of ``source``."""
    directory.mkdir()
    out = PassageStoreWriter(directory, source.dictionary if source else b"")
    for kind, a, b in steps:
        if kind == "add":
            out.add_lines([line(n) for n in range(a, a + b)])
        else:
            out.keep(source, a, b)
    out.close()
    return PassageStore(directory, out.count)


def every_line(store: PassageStore) -> list[bytes]:
    return [x + b"\n" for x in store.lines()]


runs = st.lists(st.tuples(st.integers(0, 120), st.integers(1, 40)), min_size=1, max_size=6)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.integers(1, 120), kept=runs, again=runs, data=st.data())
def test_kept_passages_read_back_in_order_whatever_the_blocks(tmp_path, first, kept, again, data):
    """Two generations of updates (the second keeping runs of a store of short blocks): every
    passage, every slice and the tables are what the steps say."""
    directory = Path(tempfile.mkdtemp(dir=tmp_path))  # each example its own
    source = written(directory / "a", [("add", 0, first)])
    expected = [line(n) for n in range(first)]
    for generation, plan in enumerate((kept, again)):
        steps, lines, fresh = [], [], 1000 * (generation + 1)
        for start, length in plan:
            start, stop = min(start, len(expected) - 1), min(start + length, len(expected))
            steps += [("keep", start, stop), ("add", fresh, 3)]
            lines += expected[start:stop] + [line(n) for n in range(fresh, fresh + 3)]
            fresh += 3
        store = written(directory / f"g{generation}", steps, source)
        assert store.check() is None
        assert every_line(store) == lines
        assert store.firsts[-1] == len(lines) == store.count
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(i, len(lines)))
        assert [x + b"\n" for x in store.lines(i, j)] == lines[i:j]
        assert store.passage(i).id == lines[i].split(b'"')[3].decode()
        source, expected = store, lines


def test_an_update_copies_the_blocks_it_keeps_byte_for_byte(tmp_path):
    old = written(tmp_path / "old", [("add", 0, 10 * PER_BLOCK)])
    frames = (tmp_path / "old" / "passages.zst").read_bytes()
    # Passages 20..29 replaced: blocks 0 and 2..9 hold only kept passages.
    new = written(tmp_path / "new", [("keep", 0, 20), ("add", 5000, 10), ("keep", 30, 160)], old)
    copied = (tmp_path / "new" / "passages.zst").read_bytes()
    assert copied.startswith(frames[: old.starts[1]])
    assert copied.endswith(frames[old.starts[2] :])
    # 16..19, the 10 new and 30..31 compressed again: here they fill one block.
    assert new.firsts.tolist() == [0, *range(16, 161, 16)]
    nothing = written(tmp_path / "none", [("keep", 5, 5), ("keep", 160, 160)], old)
    assert nothing.count == 0 and nothing.check() is None and every_line(nothing) == []
    assert every_line(new) == [*map(line, range(20)), *map(line, range(5000, 5010)),
                               *map(line, range(30, 160))]  # fmt: skip


def test_a_store_whose_tables_disagree_is_named(tmp_path):
    store = written(tmp_path / "s", [("add", 0, 40)])
    assert store.check() is None
    for table in ([0, 16, 41], [0, 16, 16, 40], [0, 20, 40], [1, 16, 40], [0, 16]):
        np.save(tmp_path / "s" / FIRSTS, np.array(table, np.int64))
        assert PassageStore(tmp_path / "s", 40).check() is not None, table


def test_blocks_are_kept_only_in_a_store_of_the_same_dictionary(tmp_path):
    source = written(tmp_path / "a", [("add", 0, 40)])
    out = PassageStoreWriter(tmp_path, b"another dictionary")
    with pytest.raises(ValueError, match="only in one of its dictionary"):
        out.keep(source, 0, 40)
    out.abort()
    os.remove(tmp_path / "passages.zst")


class FullDisk:
    """A store file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, room: int) -> None:
        self.room, self.closed = room, False

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            raise OSError(28, "No space left on device")
        self.room -= len(data)
        return len(data)

    def close(self) -> None:
        self.closed = True


def test_a_batch_that_fails_while_compressed_beside_the_caller_is_raised_not_lost(tmp_path):
    """Batches are compressed and written in a thread beside the caller: a full disk there is
    raised to the caller (by the next batch or by close), and abort drops it, closing the file."""
    for finish in ("add", "close"):
        out = PassageStoreWriter(tmp_path, b"")
        full = FullDisk(room=0)
        out._out.close()
        out._out = full
        out.add_lines([line(n) for n in range(2000)])  # whole batches handed to the thread
        with pytest.raises(OSError, match="No space left"):
            if finish == "add":
                out.add_lines([line(n) for n in range(2000, 4000)])
            out.close()
        out.abort()  # what a build does next: nothing more raised, the file closed
        assert full.closed
    roomy = PassageStoreWriter(tmp_path, b"")  # beside it: enough room, every batch written
    roomy.add_lines([line(n) for n in range(4000)])
    roomy.close()
    store = PassageStore(tmp_path, roomy.count)
    assert every_line(store) == [line(n) for n in range(4000)]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(st.integers(0, 70), min_size=1, max_size=12), train=st.booleans())
def test_batches_of_any_size_are_stored_in_whole_blocks(tmp_path, monkeypatch, batches, train):
    """A build's batches (any length, a block cut across them) read back passage for passage,
    every block full but the last, with a dictionary trained on the first lines or none."""
    from searchain.tools.retrieval.embedded.store import passages as passage_store

    monkeypatch.setattr(passage_store, "TRAIN_ON", 48)
    monkeypatch.setattr(passage_store, "TRAIN_FROM", 40 if train else 10**6)
    monkeypatch.setattr(passage_store, "BATCH", 2 * PER_BLOCK)
    directory = Path(tempfile.mkdtemp(dir=tmp_path))
    out, first = PassageStoreWriter(directory), 0
    for size in batches:
        lines = [line(n) for n in range(first, first + size)]
        out.add(b"".join(lines), np.array([len(x) for x in lines], np.int64))
        first += size
    out.close()
    store = PassageStore(directory, first)
    assert store.check() is None
    assert every_line(store) == [line(n) for n in range(first)]
    assert all(np.diff(store.firsts)[:-1] == PER_BLOCK)
    assert bool(store.dictionary) == (train and first >= 40)
