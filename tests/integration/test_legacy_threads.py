"""Threads checkpointed by a pre-release before ``messages`` became the person's are refused.

``tests/data/legacy`` holds threads written by that pre-release's code (commit 98562f8, with
``write_threads.py`` there), in SQLite and as a PostgreSQL dump: their ``messages`` hold the
LLM's conversation. Read with today's code, they are listed and ``searchain show`` reads them;
a run on one (a follow-up by ``question`` or by ``messages``, a resumed correction) is refused
in one line and writes nothing: the first public release is the floor.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.types import Command

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.threads import open_store
from tests.conftest import PASSAGES, ScriptedReplies, TableReader, TableRetriever
from tests.data.legacy.write_threads import FOLLOW, Q1, Q2, Q3
from tests.integration.test_cli import searchain

LEGACY = Path(__file__).resolve().parent.parent / "data" / "legacy"
BUS = (
    f"[Query 1]: {Q3}\n[Answer 1]: Toronto Coach Terminal.\n"
    "[Final Content]: The Toronto Coach Terminal [1]."
)
BUS_TRACE = "The Toronto Coach Terminal [1]. So the final answer is Toronto Coach Terminal."


@pytest.fixture(params=["sqlite", "postgres"])
def legacy_db(request, tmp_path) -> Iterator[str]:
    """A copy of the legacy threads, in SQLite or in a new PostgreSQL database."""
    if request.param == "sqlite":
        path = tmp_path / "legacy.sqlite"
        shutil.copy(LEGACY / "legacy.sqlite", path)
        yield str(path)
        return
    import psycopg

    url = request.getfixturevalue("postgres_db")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute((LEGACY / "legacy-postgres.sql").read_text(encoding="utf-8"))
    yield url


def context(replies: list[str], **settings) -> Context:
    retriever = TableRetriever({Q1: PASSAGES["spirit"], Q2: PASSAGES["drew"], Q3: PASSAGES["bus"]})
    reader = TableReader(
        {"p1": ("Kevin Drew", 3.0), "p2": ("Toronto", 3.0), "p3": ("Toronto Coach Terminal", 3.0)}
    )
    return Context(
        llm=ScriptedReplies(replies=replies), retriever=retriever, reader=reader, **settings
    )


def test_show_reads_legacy_threads(legacy_db):
    shown = searchain("show", "two", "--db", legacy_db, "--json")
    assert shown.returncode == 0, shown.stderr
    questions = json.loads(shown.stdout)["questions"]
    assert [q["answer"] for q in questions] == ["Toronto", "Toronto Coach Terminal"]
    waiting = searchain("show", "waiting", "--db", legacy_db)
    assert waiting.returncode == 0, waiting.stderr
    assert "Correction waiting for approval on Where was Kevin Drew born?" in waiting.stdout
    assert "'Montreal.' → reader: 'Toronto'" in waiting.stdout


def checkpoints(graph, config) -> dict[str, dict]:
    """The thread's checkpoints: id to the values each holds."""
    return {
        s.config["configurable"]["checkpoint_id"]: s.values for s in graph.get_state_history(config)
    }


@pytest.mark.parametrize(
    ("thread", "given"),
    [
        ("done", {"question": FOLLOW}),
        ("done", {"messages": [HumanMessage(FOLLOW)]}),
        ("waiting", {"question": FOLLOW}),  # paused on a correction, asked anew
        ("waiting", {"messages": [HumanMessage(FOLLOW)]}),
        ("waiting", Command(resume="approve")),
        ("waiting", Command(resume={"decisions": [{"type": "approve"}]})),
    ],
)
def test_a_run_on_a_legacy_thread_is_refused_and_writes_nothing(legacy_db, thread, given):
    """The first public release is the floor: a pre-release's thread (its messages the model's
    conversation) is refused in one line however a run enters it, before any node writes: its
    checkpoints stay as they were (LangGraph keeps the run's input in checkpoints of its own)."""
    store = open_store(legacy_db)
    graph = build_graph(checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": thread}}
    before = checkpoints(graph, config)
    with pytest.raises(ValueError, match="checkpointed by a pre-release of searchain"):
        graph.invoke(given, config, context=context([BUS, BUS_TRACE], approve_corrections=True))
    after = checkpoints(graph, config)
    # LangGraph's own: the run's input, and the step that routes it (a resume has no input).
    assert {k: after[k] for k in before} == before and len(after) - len(before) <= 2
    latest = graph.get_state(config).values
    assert latest["nodes"] == before[next(iter(before))]["nodes"]  # no node ran on it
    store.close()


def test_every_legacy_thread_is_listed(legacy_db):
    listed = searchain("threads", "--db", legacy_db)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["waiting", "two", "done"]
