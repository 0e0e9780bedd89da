"""Untrusted files read in a child process within a budget: memory, CPU, time and output.

A file's bytes bound nothing that matters: a 191 KiB DOCX of empty paragraphs took 2.9 GB and
minutes to parse in the process that read it, and a parse cannot be stopped from inside.
So every document (``searchain index``, ``--update``, a file sent in the chat) is parsed by
:mod:`searchain.documents.child`, a separate process whose address space is capped (RLIMIT_AS),
whose CPU is capped per file (RLIMIT_CPU, sized from the file's bytes), which is killed at a wall
deadline, and whose text may be at most so many characters per byte. A file over any of these
is skipped with which, and the next file gets a fresh process. The parsers are the same
libraries (PDFium, lxml, python-docx, markdown-it-py); only where and within what they run is
new. One process serves a whole build, so the cost is one interpreter start, not one a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from searchain.documents.extracted import Extracted, Section, Unreadable
from searchain.text import byte_size


@dataclass(frozen=True)
class Budget:
    """What reading one file may cost; a file that needs more is skipped with the reason.

    CPU and characters grow with the file's bytes (a base any file gets, plus so much per
    byte), the memory is the process's; the wall deadline is twice the CPU and some slack.
    """

    memory_mib: int = 512
    """Address space of the reading process (RLIMIT_AS): a parse that needs more stops."""
    seconds: float = 120.0
    """The most CPU seconds a file may take, however large."""
    base_seconds: float = 5.0
    """CPU seconds any file may take, however small (a parser starting up)."""
    seconds_per_mib: float = 20.0
    """CPU seconds a file may take per MiB of its bytes, beyond ``base_seconds``."""
    slack_seconds: float = 10.0
    """Wall seconds beyond twice the CPU budget (the process starting, a loaded machine)."""
    base_chars: int = 1_000_000
    """Characters of text any file may give, however small."""
    chars_per_byte: int = 20
    """Characters of text a file may give per byte, beyond ``base_chars`` (plain text gives
    about one; a compressed format a few; a decompression bomb thousands)."""

    def __post_init__(self) -> None:
        if self.memory_mib < 64:
            raise ValueError(f"a reading budget needs at least 64 MiB, got {self.memory_mib}")
        numbers = (self.seconds, self.base_seconds, self.seconds_per_mib, self.base_chars)
        if min(numbers) <= 0 or self.slack_seconds < 0 or self.chars_per_byte < 0:
            raise ValueError(f"a reading budget's seconds and characters must be positive: {self}")

    def cpu(self, size: int) -> float:
        """CPU seconds for a file of ``size`` bytes."""
        return min(self.seconds, self.base_seconds + self.seconds_per_mib * size / 2**20)

    def wall(self, size: int) -> float:
        """Wall seconds for a file of ``size`` bytes (the process is killed past them)."""
        return 2 * self.cpu(size) + self.slack_seconds

    def chars(self, size: int) -> int:
        """Characters of text a file of ``size`` bytes may give."""
        return self.base_chars + self.chars_per_byte * size


class Readings:
    """The reading processes one run started: stopped together when the run ends, however.

    A run cancelled, or whose client went away, ends in the server while the node reading its
    files goes on in a worker thread; the processes are killed here at once, and a process that
    thread would start afterwards is refused.
    """

    def __init__(self) -> None:
        self._children: list[subprocess.Popen[bytes]] = []
        self._ended = False
        self._lock = threading.Lock()

    def add(self, child: subprocess.Popen[bytes]) -> None:
        """Count ``child`` as this run's; killed at once if the run has ended."""
        with self._lock:
            if not self._ended:
                self._children.append(child)
                return
        child.kill()
        child.wait()
        raise Unreadable("its run ended before it was read")

    def stop(self) -> None:
        """Kill every reading process of the run still alive, and wait for each to be gone."""
        with self._lock:
            self._ended = True
            children, self._children = self._children, []
        for child in children:
            if child.poll() is None:
                child.kill()
            child.wait()


RUN_READINGS: ContextVar[Readings | None] = ContextVar("searchain_run_readings", default=None)
"""The running run's :class:`Readings` (the team server sets it for each run it executes); a
reader started where none is set (the CLI, a Python caller) is only its own."""


@contextmanager
def run_readings() -> Iterator[Readings]:
    """One run's reading processes: those started in this block, or threads it starts.

    They are killed when the block is left, however it is left.
    """
    readings = Readings()
    token = RUN_READINGS.set(readings)
    try:
        yield readings
    finally:
        readings.stop()
        with contextlib.suppress(ValueError):  # left in another context than it was entered
            RUN_READINGS.reset(token)


class PageBound(Unreadable):
    """A PDF with more pages than the caller allows (its count in ``pages``)."""

    def __init__(self, pages: int) -> None:
        super().__init__(f"{pages:,} pages")
        self.pages = pages


@dataclass(frozen=True)
class Reading:
    """A file read: its text, and its page count if it is a PDF."""

    document: Extracted
    """The text, ready to split."""
    pages: int | None
    """A PDF's pages, counted where the caller bounds them (``max_pages``); else None."""


class Reader:
    """One reading process, started when first needed and anew after a file that stopped it.

    Not shared between threads: each build, update or chat message uses its own.
    """

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        """The limits each file is read within."""
        self._child: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Reader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def read(self, fmt: str, data: bytes, name: str, max_pages: int | None = None) -> Reading:
        """``data`` (a file named ``name``) read as ``fmt``; :class:`Unreadable` says why not."""
        size = len(data)
        request = {
            "fmt": fmt,
            "name": name,
            "size": size,
            "cpu": self.budget.cpu(size),
            "chars": self.budget.chars(size),
            "max_pages": max_pages,
        }
        child = self._start()
        try:
            assert child.stdin is not None
            child.stdin.write(json.dumps(request).encode() + b"\n")
            child.stdin.write(data)
            child.stdin.flush()
        except BrokenPipeError:
            pass  # it died before reading all of it: its exit status says why, below
        reply = self._reply(child, time.monotonic() + self.budget.wall(size))
        if reply is None:
            raise Unreadable(self._stopped(child, size))
        return self._result(reply, size)

    def close(self) -> None:
        """Stop the reading process, if one runs (the next read starts another)."""
        child, self._child = self._child, None
        if child is not None:
            for pipe in (child.stdin, child.stdout):  # its stdin closed: it ends by itself too
                if pipe is not None:
                    pipe.close()
            with contextlib.suppress(OSError):  # one started before its parent gave up root
                child.kill()
            child.wait()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            self.close()
            self._child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "searchain.documents.child",
                    str(self.budget.memory_mib << 20),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "MALLOC_ARENA_MAX": "2"},
                start_new_session=True,  # Ctrl-C reaches the parent, which stops it
            )
            readings = RUN_READINGS.get()
            if readings is not None:
                readings.add(self._child)
        return self._child

    def _reply(self, child: subprocess.Popen[bytes], deadline: float) -> dict[str, Any] | None:
        """The child's one-line answer, ``{"over": "time"}`` past ``deadline``, None if it died."""
        assert child.stdout is not None
        fd = child.stdout.fileno()
        chunks: list[bytes] = []
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return {"over": "time"}
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    child.wait()
                    return None
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    return json.loads(b"".join(chunks))  # type: ignore[no-any-return]

    def _stopped(self, child: subprocess.Popen[bytes], size: int) -> str:
        """Why a reading process gave no answer (it is gone; the next file starts another)."""
        code = child.returncode
        self.close()
        if code == -signal.SIGXCPU:
            allowed = seconds(self.budget.cpu(size))
            return f"over the reading budget of {allowed} CPU seconds for its size"
        died = signal.Signals(-code).name if code < 0 else f"exit status {code}"
        return f"its reader stopped ({died}) within the {self.budget.memory_mib} MiB memory budget"

    def _result(self, reply: dict[str, Any], size: int) -> Reading:
        if "document" in reply:
            document = reply["document"]
            return Reading(
                Extracted(
                    document["title"],
                    [Section(*section) for section in document["sections"]],
                    document["empty_pages"],
                ),
                reply["pages"],
            )
        if "unreadable" in reply:
            raise Unreadable(reply["unreadable"])
        over = reply["over"]
        if over == "pages":
            raise PageBound(reply["pages"])
        self.close()  # a process that ran out of memory may hold what it could not free
        if over == "time":
            raise Unreadable(
                f"over the reading budget of {seconds(self.budget.wall(size))} s for its size"
            )
        if over == "memory":
            raise Unreadable(f"over the reading budget of {self.budget.memory_mib} MiB of memory")
        raise Unreadable(
            f"{reply['chars']:,} characters of text from {byte_size(size)}, over the "
            f"{self.budget.chars(size):,} its size allows (a decompression bomb?)"
        )


def seconds(value: float) -> str:
    """``0.5``, ``12``: a budget's seconds as a reason states them."""
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"
