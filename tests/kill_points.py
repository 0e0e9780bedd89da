"""Runs of one job, each SIGKILLed at its N-th file-system change, as a power cut or `kill -9`
would stop it: the crash tests' harness (tests/integration/test_index_crashes.py,
test_update_crashes.py).

A step is a directory made, a file opened for writing, a rename, a link or a removal. Each run
is a fork of one server process that imported the job and ran it once (its modules, its compiled
kernels): a run then costs the job's own steps, not a new interpreter's imports, so a test can
kill a job at every one of its steps in seconds. The server runs nothing else, so each fork starts
with one thread and no lock held; the job runs in the fork only, never in the test's process.
Numba's parallel kernels run on its ``workqueue`` threads, which it relaunches after a fork (its
default OpenMP layer refuses to run in a fork of a process that used it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import TracebackType

SERVER = r"""
import builtins, io, json, os, signal, sys, traceback

exec(sys.argv[1])  # defines run(*args) and runs it once, so that the forks find it warm


def kill_at(limit, calls):
    def step(fn, writes_only=False):
        def wrapped(*args, **kwargs):
            mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
            if not writes_only or any(c in str(mode) for c in "wax+"):
                calls[0] += 1
                if calls[0] == limit:
                    os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kwargs)
        return wrapped

    for name in ("rename", "replace", "symlink", "unlink", "rmdir", "mkdir"):
        setattr(os, name, step(getattr(os, name)))
    builtins.open = io.open = step(builtins.open, writes_only=True)


for line in sys.stdin:
    limit, args = json.loads(line)
    pid = os.fork()
    if pid == 0:
        calls = [0]
        try:
            kill_at(limit, calls)
            run(*args)
            sys.stdout.write(json.dumps({"calls": calls[0]}) + "\n")
            sys.stdout.flush()
            os._exit(0)
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    sys.stdout.write(json.dumps({"code": code}) + "\n")
    sys.stdout.flush()
"""


class KillPoints:
    """A server whose ``job`` source defines ``run(*args)`` and warms it by running it once
    (``job`` reads ``argv`` as ``sys.argv[2:]``); :meth:`run` forks it to run once more."""

    def __init__(self, job: str, log: Path, *argv: str) -> None:
        self.log = log
        self._stderr = log.open("w")
        self._server = subprocess.Popen(
            [sys.executable, "-c", SERVER, job, *argv],
            env={**os.environ, "NUMBA_THREADING_LAYER": "workqueue"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )

    def run(self, limit: int, *args: str) -> tuple[int, int | None]:
        """Run the job on ``args``, SIGKILLed at step ``limit`` (0: never): its exit status
        (-9 when killed) and, when it finished, the steps it took."""
        assert self._server.stdin and self._server.stdout
        self._server.stdin.write(json.dumps([limit, list(args)]) + "\n")
        self._server.stdin.flush()
        calls = None
        while True:
            line = self._server.stdout.readline()
            assert line, f"the kill-point server ended: {self.log.read_text()[-2000:]}"
            reply = json.loads(line)
            if "code" in reply:
                assert reply["code"] in (0, -9), self.log.read_text()[-2000:]
                return reply["code"], calls
            calls = reply["calls"]

    def __enter__(self) -> KillPoints:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server.stdin
        self._server.stdin.close()
        self._server.wait(timeout=300)
        self._stderr.close()
