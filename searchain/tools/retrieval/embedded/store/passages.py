"""The passages of an index, compressed in small blocks that are read one at a time.

Passages are stored as JSON lines (``{"id", "title", "text"[, "source"]}``), up to
:data:`PER_BLOCK` to a block, each block one zstd frame compressed with a dictionary trained on
the corpus's first passages: a small block compresses poorly alone (the dictionary holds what all
blocks share), and returning a passage decompresses only its block (about 17 microseconds).
Files:

* ``passages.zst``: the frames end to end;
* ``passages.blocks.npy`` (int64, blocks + 1): each frame's first byte, then the file's size;
* ``passages.firsts.npy`` (int64, blocks + 1): each block's first passage, then the count. A
  build fills every block but the last; an update (:mod:`.update`) copies the frames of the
  blocks it keeps whole, byte for byte, so the blocks beside a change may hold fewer;
* ``passages.dict``: the dictionary (empty for a corpus too small to train one on).

On the benchmark's synthetic 1M passages (random words: no phrase repeats) the store is 0.45 of
the raw text; real Wikipedia text compresses to about a third.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import weakref
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from searchain.tools.retrieval.embedded.directory import npy
from searchain.tools.retrieval.embedded.directory.checked import CheckedFile
from searchain.types import Passage, Source

STORE = "passages.zst"
BLOCKS = "passages.blocks.npy"
FIRSTS = "passages.firsts.npy"
DICTIONARY = "passages.dict"
FILES = (STORE, BLOCKS, FIRSTS, DICTIONARY)
"""Every file a store is, in its index's directory."""
PER_BLOCK = 16
"""Passages a block holds, about 10 KB of text: twice as many compress a little better, but
double what a returned passage costs to decompress."""
LEVEL = 5
"""zstd's level: the lowest that keeps the store under :data:`DICTIONARY_SIZE`'s goal of 0.45 of
the raw text on the benchmark corpus; each level above costs much more compression time for a
little less disk."""
BATCH = 64 * PER_BLOCK
"""Passages compressed together once the compressor is ready: one call to zstd's threads for 64
blocks, not one a block (an update adds a document's few passages at a time)."""
COPY_CHUNK = 1 << 24
"""Bytes of kept blocks read and written at a time."""
DICTIONARY_SIZE = 1 << 19
"""Bytes of dictionary trained at most. A smaller one is searched faster by every block, so the
build is faster, for a slightly larger store: this size keeps the store within the goal of
0.45 of the raw text."""
TRAIN_ON = 12_000
"""Passages the dictionary is trained on: the corpus's first."""
TRAIN_FROM = 1_000
"""Passages below which no dictionary is trained (too few to learn from; too small to matter)."""


def _train(lines: list[bytes]) -> bytes:
    """A dictionary for blocks of these lines, or none (b"") for too few of them."""
    import zstandard

    if len(lines) < TRAIN_FROM:
        return b""
    size = min(DICTIONARY_SIZE, sum(map(len, lines)) // 4)
    try:  # k and d given: no search for them, so it is quick and deterministic
        return zstandard.train_dictionary(size, lines, k=256, d=6).as_bytes()
    except zstandard.ZstdError:
        return b""


def record(line: bytes, score: float = 0.0) -> Passage:
    """The passage a stored line holds (ValueError, KeyError or TypeError if it holds none)."""
    fields = json.loads(line)
    return Passage(
        fields["id"], fields["title"], fields["text"], score, Source.of(fields.get("source"))
    )


class PassageStoreWriter:
    """Writes passages' JSON lines into a store in ``directory``; :meth:`close` finishes it."""

    def __init__(self, directory: Path, dictionary: bytes | None = None, threads: int = -1) -> None:
        self.directory = directory
        self._threads = threads
        """zstd's threads compressing a batch of blocks (-1: one a core). A build gives it the
        cores its workers leave: on 2 cores with one worker, a second thread took the worker's
        core from it and the build was slower."""
        self._dictionary = dictionary
        """The dictionary to compress with; None: trained on the first :data:`TRAIN_ON`."""
        self._pending: list[bytes] = []
        """Lines added and not yet compressed, as added: batches of lines end to end."""
        self._pending_lengths: list[np.ndarray] = []
        """Each pending line's bytes, batch by batch."""
        self._sizes: list[int] = []
        self._counts: list[int] = []
        """Each written block's passages."""
        self._out = (directory / STORE).open("wb")
        self._compressor: Any = None
        self._beside: ThreadPoolExecutor | None = None
        self._compressing: Future[None] | None = None
        """The batch being compressed and written beside the caller (one at a time, in order)."""
        self.count = 0
        """Passages added so far."""

    def add(self, lines: bytes, lengths: np.ndarray) -> None:
        """Passages' lines, end to end, ``lengths`` bytes each (each ends in a newline)."""
        self._pending.append(lines)
        self._pending_lengths.append(np.asarray(lengths, np.int64))
        self.count += len(lengths)
        if self._held < (TRAIN_ON if self._compressor is None else BATCH):
            return
        self._write(self._held - self._held % PER_BLOCK)

    def add_lines(self, lines: list[bytes]) -> None:
        """Passages' lines, one each."""
        if lines:
            self.add(b"".join(lines), np.fromiter(map(len, lines), np.int64, len(lines)))

    @property
    def _held(self) -> int:
        """Lines pending."""
        return sum(map(len, self._pending_lengths))

    def _write(self, upto: int) -> None:
        """Compress the first ``upto`` pending lines (whole blocks, but at the end).

        Blocks are cut from the pending bytes by the lines' ends, not joined line by line: a
        Python object a block, not one a passage.
        """
        data = b"".join(self._pending)
        ends = np.cumsum(np.concatenate(self._pending_lengths or [np.zeros(0, np.int64)]))
        if self._compressor is None:
            self._start(data, ends)
        if not upto:
            return
        firsts = np.arange(0, upto, PER_BLOCK)
        lasts = np.minimum(firsts + PER_BLOCK, upto)
        starts = np.concatenate([[0], ends[firsts[1:] - 1]]).tolist()
        blocks = [data[a:b] for a, b in zip(starts, ends[lasts - 1].tolist(), strict=True)]
        rest = int(ends[upto - 1])
        self._pending = [data[rest:]] if upto < len(ends) else []
        self._pending_lengths = [np.diff(ends[upto - 1 :])] if upto < len(ends) else []
        self._wait()  # the batch before is written: batches stay in order, one held at a time
        if self._beside is None:
            self._beside = ThreadPoolExecutor(max_workers=1)
        # zstd compresses without the GIL: the caller reads and hands out the next passages
        # meanwhile, which makes a build's reading and encoding faster.
        self._compressing = self._beside.submit(self._compress, blocks, (lasts - firsts).tolist())

    def _start(self, data: bytes, ends: np.ndarray) -> None:
        """Make the compressor, its dictionary trained on the first pending lines if it has none."""
        import zstandard

        if self._dictionary is None:
            bounds = [0, *ends[:TRAIN_ON].tolist()]
            self._dictionary = _train([data[a:b] for a, b in itertools.pairwise(bounds)])
        trained = None
        if self._dictionary:
            # Digested once for every frame: otherwise each call of zstd's threads digests
            # the dictionary again in each thread, half the store's time at 64 blocks a call
            # (the frames are the same bytes either way).
            trained = zstandard.ZstdCompressionDict(self._dictionary)
            trained.precompute_compress(level=LEVEL)
        self._compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=trained)

    def _compress(self, blocks: list[bytes], counts: list[int]) -> None:
        frames = self._compressor.multi_compress_to_buffer(blocks, threads=self._threads)
        for frame in frames:
            data = frame.tobytes()
            self._out.write(data)
            self._sizes.append(len(data))
        self._counts += counts

    def _wait(self) -> None:
        """Wait for the batch being compressed; raise what it raised (a full disk, say)."""
        if self._compressing is not None:
            compressing, self._compressing = self._compressing, None
            compressing.result()

    def keep(self, store: PassageStore, start: int, stop: int) -> None:
        """Passages ``start`` to ``stop`` (excluded) of ``store``, which shares the dictionary.

        The blocks that hold only them are copied as they are, compressed; the passages at the
        ends, which share a block with others, are compressed again. The passages added before
        are written first, their last block short if they do not fill it, so a store an update
        wrote holds short blocks beside what changed.
        """
        if self._dictionary is None or store.dictionary != self._dictionary:
            raise ValueError("a passage store's blocks are kept only in one of its dictionary")
        if start >= stop:
            return
        first = store.block_of(start)
        if store.firsts[first] < start:
            first += 1  # the block holding `start` holds passages before it too
        end = store.block_of(stop - 1) + 1
        if store.firsts[end] > stop:
            end -= 1  # and the one holding the last passage, passages after it
        if first >= end:
            self.add_lines([line + b"\n" for line in store.lines(start, stop)])
            return
        self.add_lines([line + b"\n" for line in store.lines(start, int(store.firsts[first]))])
        self._write(self._held)
        self._wait()
        at, until = int(store.starts[first]), int(store.starts[end])
        while at < until:
            data = os.pread(store.fd, min(COPY_CHUNK, until - at), at)
            if not data:
                raise ValueError(f"{STORE} ends at byte {at}, before its table's {until}")
            self._out.write(data)
            at += len(data)
        self._sizes += np.diff(store.starts[first : end + 1]).tolist()
        counts = np.diff(store.firsts[first : end + 1]).tolist()
        self._counts += counts
        self.count += sum(counts)
        self.add_lines([line + b"\n" for line in store.lines(int(store.firsts[end]), stop)])

    def close(self) -> None:
        """Write the last block and the tables."""
        self._write(self._held)
        self._stop()
        self._out.close()
        for name, sizes in ((BLOCKS, self._sizes), (FIRSTS, self._counts)):
            table = np.zeros(len(sizes) + 1, np.int64)
            np.cumsum(sizes, out=table[1:])
            np.save(self.directory / name, table)
        (self.directory / DICTIONARY).write_bytes(self._dictionary or b"")

    def abort(self) -> None:
        """Close the file without finishing it (its directory is being removed).

        What the batch being compressed raised is dropped: the error that stopped the writing
        is the one to report.
        """
        with contextlib.suppress(Exception):
            self._stop()
        self._out.close()

    def _stop(self) -> None:
        """Wait for the last batch to be written, and end the thread that wrote it."""
        try:
            self._wait()
        finally:
            if self._beside is not None:
                self._beside.shutdown()
                self._beside = None


class PassageStore:
    """A store's passages by number: ``line(i)`` reads and decompresses one block."""

    def __init__(self, directory: Path, count: int, checked: CheckedFile | None = None) -> None:
        self.count = count
        self.checked = checked
        """The store file's chunk check (an open index's), run before any block is read."""
        self.starts = npy.load(directory / BLOCKS, mmap=True)
        """Each block's first byte in the file, then the file's size."""
        self.firsts = npy.load(directory / FIRSTS, mmap=True)
        """Each block's first passage, then the count."""
        self.dictionary = (directory / DICTIONARY).read_bytes()
        """The dictionary its blocks are compressed with (b"": none)."""
        self.fd = os.open(directory / STORE, os.O_RDONLY)
        # Closed when the store is collected, or at exit (a __del__ may run after `os` is gone).
        weakref.finalize(self, os.close, self.fd)
        self._local = threading.local()  # a decompressor is not to be shared between threads

    def check(self) -> str | None:
        """What does not hold together in the tables (sizes, not contents); None if all does."""
        firsts = self.firsts
        if len(firsts) != len(self.starts) or len(firsts) < 1 + (self.count > 0):
            return f"{len(self.starts) - 1} passage blocks, {len(firsts) - 1} block firsts"
        if firsts[0] != 0 or firsts[-1] != self.count:
            return f"passage blocks holding {firsts[-1] - firsts[0]} passages, not {self.count}"
        counts = np.diff(firsts)
        if len(counts) and (counts.min() < 1 or counts.max() > PER_BLOCK):
            return f"a passage block of {counts.min()} or {counts.max()} passages"
        if self.starts[0] != 0 or self.starts[-1] != os.fstat(self.fd).st_size:
            return "passage block offsets"
        return None

    def _decompressor(self) -> Any:
        decompressor = getattr(self._local, "decompressor", None)
        if decompressor is None:
            import zstandard

            trained = zstandard.ZstdCompressionDict(self.dictionary) if self.dictionary else None
            decompressor = zstandard.ZstdDecompressor(dict_data=trained)
            self._local.decompressor = decompressor
        return decompressor

    def block(self, b: int) -> list[bytes]:
        """Block ``b``'s lines (without their newlines)."""
        start, end = int(self.starts[b]), int(self.starts[b + 1])
        if self.checked is not None:
            self.checked.ensure(start, end)
        data = self._decompressor().decompress(os.pread(self.fd, end - start, start))
        lines = data.split(b"\n")
        expected = int(self.firsts[b + 1] - self.firsts[b])
        if len(lines) != expected + 1 or lines[-1]:
            raise ValueError(f"passage block {b} holds {len(lines) - 1} lines, not {expected}")
        return lines[:-1]

    def block_of(self, i: int) -> int:
        """The block that holds passage ``i``."""
        return int(np.searchsorted(self.firsts, i, side="right")) - 1

    def passage(self, i: int, score: float = 0.0) -> Passage:
        """Passage ``i``, with ``score``."""
        b = self.block_of(i)
        return record(self.block(b)[i - int(self.firsts[b])], score)

    def lines(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The lines of passages ``start`` to ``end`` (excluded; None: the last), in order.

        A block is decompressed at a time.
        """
        end = self.count if end is None else end
        if start >= end:
            return
        for b in range(self.block_of(start), self.block_of(end - 1) + 1):
            first = int(self.firsts[b])
            yield from self.block(b)[max(start - first, 0) : end - first]
