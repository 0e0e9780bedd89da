"""The build's passages encoded on every core and handed back in corpus order.

Worker processes, not threads: tokenising is Python code, which the GIL runs one thread at a time.
Each worker is a plain ``python -m searchain.tools.retrieval.embedded.indexer.workers`` child fed
batches through its standard input and answering on its standard output, not a ``multiprocessing``
pool: a spawned pool re-imports the caller's main script in every worker, which breaks a script that
builds an index at top level, or one piped to ``python -``; a forked one copies a server's threads
and their locks. Batches go to the workers in turn and come back in the same turn, so the order is
the corpus's; at most :data:`IN_FLIGHT` batches per worker are in flight, so memory stays flat
however long the corpus. A thread per worker writes its batches and another reads its answers, so
neither side waits on a full pipe while the other works.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import searchain
from searchain.errors import BuildWorkerDied
from searchain.tools.retrieval.corpus.readers import Corpus, IdCheck
from searchain.tools.retrieval.corpus.rows import Chunk
from searchain.tools.retrieval.embedded.indexer.encode import (
    EncodedBatch,
    Encoder,
    Record,
    Texts,
    source_json,
)
from searchain.types import Passage, is_whole

Job = list[Record] | Chunk
"""What a worker is handed: passages as records, or a chunk of a corpus file to read first."""

BATCH = 1000
"""Passages a worker encodes at a time: large enough that handing a batch over costs little."""
LOCAL_BATCHES = 8
"""Batches a corpus may have and be encoded in this process alone: a small corpus (the demo's,
a test's) is indexed before a worker process would have imported numpy. A larger one starts
its workers at once."""
WHILE_STARTING = True
"""Whether this process encodes batches itself while its workers start (about a second each:
importing numpy and numba, loading the compiled code), not waiting for them: it has only
:data:`LOCAL_BATCHES` to encode meanwhile. Tests turn it off to hand every batch to a worker."""
READY = "ready"
"""A worker's first answer: it has loaded its compiled code, and a batch it takes starts at once."""
IN_FLIGHT = 8
"""Batches each worker may hold: enough to keep it encoding while this process counts a
segment, in which a worker encodes about a dozen batches. Fewer left a worker idle; more built
no faster (``benchmarks/build_memory.py`` measures a build)."""
_FRAME = struct.Struct("<Q")
MAX_FRAME = 1 << 36
"""Bytes a frame may say it holds: far beyond any batch's, so a larger length is not a frame's
(text a library printed where one should start) and is refused, not allocated."""


def default_workers() -> int:
    """One fewer than the cores this process may run on: this process takes a core's worth.

    It cuts a corpus file into chunks, writes the passage store (zstd's threads compress it)
    and counts the postings while the workers parse and encode, with about twice the CPU time of
    a worker. A second worker on 2 cores built a little faster but raised the process tree's
    peak memory past the goal one worker keeps (``benchmarks/build_memory.py``).
    """
    return len(os.sched_getaffinity(0)) - 1


def worker_count(workers: int | None) -> int:
    """``workers`` checked (a whole number, 0 or more), or :func:`default_workers` for None."""
    if workers is None:
        return default_workers()
    if not is_whole(workers, 0):
        raise ValueError(f"workers must be a whole number, 0 or more: {workers!r}")
    return workers


def write_frame(stream: BinaryIO, value: object) -> None:
    """Send ``value`` as one length-prefixed pickle."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> object | None:
    """The next value :func:`write_frame` sent, or None at the end of the stream."""
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(head)
    if size > MAX_FRAME:
        raise ValueError(f"a frame said to hold {size:,} bytes, no batch's size")
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _records(passages: Iterable[Passage], size: int) -> Iterator[list[Record]]:
    """``passages`` as the records an encoder takes, ``size`` at a time."""
    batch: list[Record] = []
    for passage in passages:
        batch.append((passage.id, passage.title, passage.text, source_json(passage.source)))
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def encode(encoder: Encoder, job: Job) -> EncodedBatch:
    """``job`` encoded: a chunk is parsed first, its ids hashed for the corpus's repeat check.

    A TSV chunk is parsed into code points in compiled code (:mod:`.scan.tsvscan`) unless it needs
    ``csv`` itself: then, as any other, by the readers.
    """
    if not isinstance(job, Chunk):
        return encoder.encode(job)
    parsed = job.parsed()
    if parsed is None:
        records, ids = job.records()
        return dataclasses.replace(encoder.encode(records), ids=ids)
    ids, texts = Texts(parsed.ids, parsed.id_ends), Texts(parsed.texts, parsed.text_ends)
    return dataclasses.replace(encoder.encode_texts(ids, texts, parsed.titles), ids=parsed.table)


class _Worker:
    """One child process and the thread that feeds it."""

    def __init__(self, tokenizer: str) -> None:
        package_root = str(Path(searchain.__file__).resolve().parents[1])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, path]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "searchain.tools.retrieval.embedded.indexer.workers", tokenizer],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.started = threading.Event()
        """Set once the worker is ready (:data:`READY`), or its output has ended."""
        self._outbox: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._feed, daemon=True)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._writer.start()
        self._reader.start()

    def _feed(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (job := self._outbox.get()) is not None:
                write_frame(stdin, job)
            stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the worker died: its reader reports it

    def _drain(self) -> None:
        """Read the worker's answers as they come, into :meth:`receive`'s queue.

        The worker never waits on a full pipe while the build counts, stores or numbers a
        batch (the counting kernel and zstd hold no GIL, so this thread reads meanwhile). The
        queue ends in None: the worker's output ended, after an exception if what it sent was
        neither a batch nor a bad line of the corpus it read. Its first answer, :data:`READY`,
        sets :attr:`started` instead, as its end does.
        """
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while (answer := read_frame(stdout)) is not None:
                if isinstance(answer, str) and answer == READY and not self.started.is_set():
                    self.started.set()
                    continue
                if not isinstance(answer, EncodedBatch | ValueError):
                    raise TypeError(f"a {type(answer).__name__}")
                self._inbox.put(answer)
        except Exception as exc:  # a garbled frame: something else wrote to its output
            self._inbox.put(
                ChildProcessError(
                    f"a build worker process answered with what is not a batch ({exc}): build "
                    "again; if it repeats, something in the worker writes to its standard output"
                )
            )
        finally:
            self._inbox.put(None)
            self.started.set()

    def send(self, job: Job) -> None:
        self._outbox.put(job)

    def receive(self) -> EncodedBatch:
        answer = self._inbox.get()
        if isinstance(answer, EncodedBatch):
            return answer
        if isinstance(answer, ChildProcessError):
            self.process.kill()
            raise answer
        if isinstance(answer, ValueError):  # a passage it refused: a bad line of the corpus, say
            raise answer
        code = self.process.wait()
        raise BuildWorkerDied(
            "a build worker process died (exit status {code}): build again; if it ran out "
            "of memory, with {workers} or {memory}",
            settings=("workers", "memory"),
            code=code,
        )

    def stop(self) -> None:
        self._outbox.put(None)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._writer.join()
        self._reader.join()
        assert self.process.stdout is not None
        self.process.stdout.close()


def encoded_batches(
    passages: Iterable[Passage], tokenizer: str, workers: int | None, batch: int = BATCH
) -> Iterator[tuple[int, EncodedBatch]]:
    """``passages`` encoded in batches of ``batch``, in order, by ``workers`` processes.

    ``workers`` None starts :func:`default_workers`. Yields ``(worker, batch)``: a batch's codes
    are its worker's (see :class:`.TermMap`; -1 is this process). The first
    :data:`LOCAL_BATCHES` are encoded here, and all of them with no workers: processes start
    only for a corpus larger than that. A :class:`.Corpus` is handed over as its file's bytes
    (:meth:`.Corpus.chunks`), read where it is encoded; its ids are checked for repeats once
    every batch is back, before this ends.
    """
    if not isinstance(passages, Corpus):
        yield from _encoded(_records(passages, batch), tokenizer, worker_count(workers))
        return
    ids = IdCheck()
    for worker, encoded in _encoded(passages.chunks(batch), tokenizer, worker_count(workers)):
        assert encoded.ids is not None  # a chunk's batch carries them
        ids.extend(encoded.ids)
        yield worker, encoded
    passages.check_ids(ids)


def _encoded(
    jobs: Iterator[Job], tokenizer: str, workers: int
) -> Iterator[tuple[int, EncodedBatch]]:
    """``jobs`` encoded, in order: see :func:`encoded_batches`."""
    encoder = Encoder(tokenizer)
    ahead = list(itertools.islice(jobs, LOCAL_BATCHES + 1)) if workers else []
    if not workers or len(ahead) <= LOCAL_BATCHES:
        for job in itertools.chain(ahead, jobs):
            yield -1, encode(encoder, job)
        return
    pool = [_Worker(tokenizer) for _ in range(workers)]
    jobs = itertools.chain(ahead, jobs)
    try:
        while WHILE_STARTING and not any(worker.started.is_set() for worker in pool):
            job = next(jobs, None)
            if job is None:
                break
            yield -1, encode(encoder, job)
        sent = received = 0
        for job in jobs:
            if sent - received == IN_FLIGHT * workers:
                yield received % workers, pool[received % workers].receive()
                received += 1
            pool[sent % workers].send(job)
            sent += 1
        while received < sent:
            yield received % workers, pool[received % workers].receive()
            received += 1
    finally:
        for worker in pool:
            worker.stop()


def serve(tokenizer: str) -> None:
    """A worker's life: encode each job read from standard input, answer on standard output.

    A job it refuses is answered with the ``ValueError`` that says why: the
    :class:`.CorpusError` naming a corpus's bad line, a passage UTF-8 cannot store.
    """
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    encoder = Encoder(tokenizer)
    Encoder(tokenizer).encode([("", "", "the compiled code loaded", "")])  # not this one's words
    write_frame(stdout, READY)
    try:
        while (job := read_frame(stdin)) is not None:
            try:
                answer: EncodedBatch | ValueError = encode(encoder, job)  # type: ignore[arg-type]
            except ValueError as exc:
                answer = exc
            write_frame(stdout, answer)
    except (KeyboardInterrupt, BrokenPipeError):
        pass  # the build was stopped: it reports why


if __name__ == "__main__":
    serve(sys.argv[1])
