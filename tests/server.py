"""The self-hosted server the tests run against: scripts/server.sh with test keys and settings.

Its default settings are the demo index, a scripted LLM answering "Giotto" and the LLM as reader;
each user of ``KEYS`` has a key.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, require, require_module
from tests.integration.test_cli import searchain

SERVER = str(ROOT / "scripts" / "server.sh")
SERVER_VENV = ROOT / ".venv-server" / "documents-postgres-server"
"""The environment scripts/server.sh builds for the tests' deployments (a scripted LLM, the llm
reader: its base extras alone, searchain/server/extras.py)."""
KEYS = {name: f"sk-test-{name}-{uuid.uuid4().hex}" for name in ("alice", "bob", "erin")}
KEYS |= {f"user{i}": f"sk-test-user{i}-{uuid.uuid4().hex}" for i in range(8)}
"""Each test user's API key (a fresh set per test session)."""
QUESTION = "Who influenced Lorenzo Monaco?"


def write_script(path: Path, **script) -> Path:
    base = {
        "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
        "trace": "He was influenced by Giotto [1]. So the final answer is Giotto.",
        "reader": "Answer: Giotto\nConfidence: 0.9",
    }
    path.write_text(json.dumps({**base, **script}))
    return path


@dataclass
class Deployment:
    url: str
    work: Path
    env: dict[str, str]

    def client(self, user: str):
        from langgraph_sdk import get_sync_client

        return get_sync_client(url=self.url, api_key=KEYS[user], timeout=300)


CORRECTIONS = {
    "chains": [
        "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Cimabue",
        "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto\n"
        "[Query 2]: Where was Lorenzo Monaco born?\n[Answer 2]: Siena",
    ],
    "trace": "Lorenzo Monaco, born in Siena [2], was influenced by Giotto [1]. So the final "
    "answer is Giotto.",
    "reader": "Answer: Giotto\nConfidence: 0.9",
    "rules": [
        [r"Question: Where was Lorenzo Monaco born\?\s*$", "Answer: Florence\nConfidence: 0.9"]
    ],
}
"""Two corrections in a row: the reader (sure) corrects Cimabue to Giotto, rightly, then Siena
to Florence, wrongly (the passage says Siena): one to approve, one to reject."""


def choices(work: Path) -> dict[str, Path]:
    """The deployment's named scripts: `load` (8 first calls meet), `kill` (2 attempts meet,
    logged), `hold` and `gate` (wait for `hold.release`, `gate.release`), `corrections` (two
    corrections, see :data:`CORRECTIONS`), `cimabue` (answers Cimabue, its reader unsure)."""
    for name in ("barrier-load", "barrier-kill"):
        (work / name).mkdir(exist_ok=True)
    return {
        "load": write_script(
            work / "load.json", delay=0.1, barrier=8, barrier_dir=str(work / "barrier-load")
        ),
        "kill": write_script(
            work / "kill.json",
            barrier=2,
            barrier_dir=str(work / "barrier-kill"),
            log=str(work / "killed.log"),
        ),
        "gate": write_script(  # the same, for the fair share's bursts (gate.release)
            work / "gate.json",
            log=str(work / "gate.log"),
            hold_from=1,
            release=str(work / "gate.release"),
        ),
        "hold": write_script(  # every call waits until the file hold.release exists
            work / "hold.json",
            log=str(work / "hold.log"),
            hold_from=1,
            release=str(work / "hold.release"),
        ),
        "corrections": write_script(work / "corrections.json", **CORRECTIONS),
        "cimabue": write_script(
            work / "cimabue.json",
            chains=["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Cimabue"],
            trace="He was influenced by Cimabue [1]. So the final answer is Cimabue.",
            reader="Answer: Cimabue\nConfidence: 0.0",
        ),
    }


def serve(work: Path, postgres_server: str) -> Iterator[Deployment]:
    """A deployment started with scripts/server.sh in ``work``, stopped afterwards."""
    import psycopg

    require_module("langgraph_sdk", "studio")
    assert searchain("index", "--demo", "--index", str(work / "index")).returncode == 0
    (work / "watched").mkdir()
    keys = work / "keys.toml"
    keys.write_text("[keys]\n" + "".join(f'{u} = "{k}"\n' for u, k in KEYS.items()))
    name = f"searchain_server_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    env = {
        **os.environ,
        "SEARCHAIN_API_KEYS_FILE": str(keys),
        "SERVER_BASE": str(work / "base"),
        "DATABASE_URL": f"{postgres_server.rpartition('/')[0]}/{name}",
        "SEARCHAIN_INDEX": str(work / "index"),
        "SEARCHAIN_LLM": f"scripted:{write_script(work / 'script.json')}",
        # The models a caller may choose by name (a caller names no file: docs/server.md).
        "SEARCHAIN_LLM_CHOICES": json.dumps(
            {name: f"scripted:{path}" for name, path in choices(work).items()}
        ),
        "SEARCHAIN_READER": "llm",
        # A user's threads hold at most 3 files sent in messages (tests/integration/test_uploads).
        "SEARCHAIN_UPLOADS_PER_USER": "3",
        # Every file the server's processes open under `watched` is logged (tests/audit).
        "PYTHONPATH": str(ROOT / "tests" / "audit"),
        "SEARCHAIN_TEST_WATCHED": str(work / "watched"),
        "SEARCHAIN_TEST_OPENED": str(work / "opened.log"),
        # A killed worker's run is taken up again after its lease. Aegra's own 30 s, with 15
        # heartbeats in it: an 8 s lease ran out under a busy machine's load while the worker
        # still ran, and the run was taken from it (a chat's follow-up never answered).
        "LEASE_DURATION_SECONDS": "30",
        "HEARTBEAT_INTERVAL_SECONDS": "2",
        "REAPER_INTERVAL_SECONDS": "2",
    }
    done = subprocess.run([SERVER, "start"], env=env, capture_output=True, text=True, timeout=900)
    require(done.returncode == 0, f"could not start the server: {done.stderr[-1500:]}")
    yield Deployment(done.stdout.strip().splitlines()[-1], work, env)
    # Stopping removes the server's state: its log is kept beside the test's other files.
    log = work / "base" / "current" / "log"
    if log.exists():
        shutil.copy(log, work / "server.log")
    subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=120)
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


LANGGRAPH = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "langgraph"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def langgraph_dev(work: Path, env: dict[str, str] | None = None) -> Iterator[tuple[str, Path]]:
    """The real ``langgraph dev`` serving this checkout's graphs from ``work``: ``(url, work)``.

    ``env`` adds to the environment (the graphs' default settings, ``SEARCHAIN_*``). Stopped
    afterwards, and its log never warns about or blocks searchain's state types.
    """
    exe = str(LANGGRAPH) if LANGGRAPH.exists() else shutil.which("langgraph")
    require(exe is not None, "langgraph-cli[inmem] is not installed (make install)", extra="studio")
    require_module("langgraph_sdk", "studio")
    shutil.copy(ROOT / "langgraph.json", work / "langgraph.json")
    (work / "searchain").symlink_to(ROOT / "searchain")  # the graph path in langgraph.json
    port = free_port()
    log = (work / "server.log").open("w")
    # --n-jobs-per-worker as docs/conversations.md says: else runs queue one by one.
    command = [exe, "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser",
               "--no-reload", "--n-jobs-per-worker", "10"]  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=work, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        assert proc.poll() is None, (work / "server.log").read_text()[-2000:]
    else:
        proc.kill()
        pytest.fail("langgraph dev did not answer /ok in 120 s")
    yield url, work
    proc.terminate()
    proc.wait(timeout=30)
    log_text = (work / "server.log").read_text()
    assert "unregistered type" not in log_text and "Blocked deserialization" not in log_text
