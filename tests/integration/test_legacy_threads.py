"""Threads checkpointed by the release before ``messages`` became the person's keep working.

``tests/data/legacy`` holds threads written by that release's code (commit 98562f8, with
``write_threads.py`` there), in SQLite and as a PostgreSQL dump: their ``messages`` hold the
LLM's conversation. Read with today's code, they load, ``searchain show`` reads them, a
follow-up question (by ``question`` or by ``messages``) answers, and a paused correction
resumes; each time the thread is migrated on read: ``messages`` becomes the person's
conversation and the LLM's moves to ``llm_messages``.
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
from tests.data.legacy.write_threads import FOLLOW, Q1, Q2, Q3, Q
from tests.integration.test_cli import searchain

LEGACY = Path(__file__).resolve().parent.parent / "data" / "legacy"
PROMPT_MARKS = ("[Unsolved Query]", "[Query 1]", "Construct a global reasoning chain")
"""Text of the LLM's conversation that must never show in the person's."""
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


def person(values) -> list[tuple[str, str]]:
    """The person's conversation as (type, text) pairs; never a prompt of ours."""
    pairs = [(m.type, m.text) for m in values["messages"]]
    assert not [text for _, text in pairs if any(mark in text for mark in PROMPT_MARKS)]
    return pairs


def test_show_reads_legacy_threads(legacy_db):
    shown = searchain("show", "two", "--db", legacy_db, "--json")
    assert shown.returncode == 0, shown.stderr
    questions = json.loads(shown.stdout)["questions"]
    assert [q["answer"] for q in questions] == ["Toronto", "Toronto Coach Terminal"]
    waiting = searchain("show", "waiting", "--db", legacy_db)
    assert waiting.returncode == 0, waiting.stderr
    assert "Correction waiting for approval on Where was Kevin Drew born?" in waiting.stdout
    assert "'Montreal.' → reader: 'Toronto'" in waiting.stdout


@pytest.mark.parametrize("by", ["question", "messages"])
def test_a_follow_up_on_a_legacy_thread_answers_and_migrates_it(legacy_db, by):
    store = open_store(legacy_db)
    graph = build_graph(checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": "done"}}
    before = graph.get_state(config).values
    assert before["messages"][0].text.startswith(("Construct", "[Question]", "Given"))
    ask = {"question": FOLLOW} if by == "question" else {"messages": [HumanMessage(FOLLOW)]}
    out = graph.invoke(ask, config, context=context([BUS, BUS_TRACE]))
    assert out["answer"] == "Toronto Coach Terminal"
    assert [turn.question for turn in out["history"]] == [Q]  # the legacy question kept
    pairs = person(graph.get_state(config).values)
    assert [kind for kind, _ in pairs] == ["human", "ai", "human", "ai"]
    assert pairs[0][1] == Q and "**Answer:** Toronto" in pairs[1][1]
    assert pairs[2][1] == FOLLOW and "**Answer:** Toronto Coach Terminal" in pairs[3][1]
    llm = graph.get_state(config).values["llm_messages"]
    assert llm[0]["by"] == "searchain" and "[Question]: " + Q in llm[0]["text"]  # its history
    store.close()
    shown = searchain("show", "done", "--db", legacy_db, "--json")
    assert [q["answer"] for q in json.loads(shown.stdout)["questions"]] == [
        "Toronto",
        "Toronto Coach Terminal",
    ]


@pytest.mark.parametrize("decision", ["approve", {"decisions": [{"type": "approve"}]}])
def test_a_legacy_correction_awaiting_approval_resumes(legacy_db, decision):
    store = open_store(legacy_db)
    graph = build_graph(checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": "waiting"}}
    ctx = context(
        [f"[Query 1]: {Q2}\n[Answer 1]: Toronto.", "Toronto [1]. So the final answer is Toronto."],
        approve_corrections=True,
    )
    out = graph.invoke(Command(resume=decision), config, context=ctx)
    assert out["answer"] == "Toronto" and out["nodes"][0].source == "corrected"
    # The re-plan continued the legacy conversation: prompt, wrong chain, feedback, new chain.
    llm = graph.get_state(config).values["llm_messages"]
    assert [turn["by"] for turn in llm] == ["searchain", "llm", "searchain", "llm"]
    assert "Montreal" in llm[1]["text"] and "Toronto" in llm[2]["text"]
    pairs = person(graph.get_state(config).values)
    assert pairs[0] == ("human", Q2) and [kind for kind, _ in pairs] == ["human", "ai"]
    assert "**Answer:** Toronto" in pairs[1][1] and "[1] *Kevin Drew*" in pairs[1][1]
    store.close()


def test_every_legacy_thread_is_listed(legacy_db):
    listed = searchain("threads", "--db", legacy_db)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["waiting", "two", "done"]


@pytest.mark.parametrize("by", ["question", "messages"])
def test_a_new_question_to_a_legacy_thread_paused_on_a_correction_is_answered(legacy_db, by):
    """Issue 41, case 6: the chat's new question was taken for model feedback and dropped, the
    old question answered again and shown twice."""
    store = open_store(legacy_db)
    graph = build_graph(checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": "waiting"}}
    assert graph.get_state(config).interrupts  # paused on a correction
    ask = {"question": FOLLOW} if by == "question" else {"messages": [HumanMessage(FOLLOW)]}
    out = graph.invoke(ask, config, context=context([BUS, BUS_TRACE]))
    assert out["question"] == FOLLOW and out["answer"] == "Toronto Coach Terminal"
    pairs = person(graph.get_state(config).values)
    asked = [text for kind, text in pairs if kind == "human"]
    assert asked.count(Q2) <= 1 and asked[-1] == FOLLOW  # the old question never twice
    assert pairs[-1][0] == "ai" and "**Answer:** Toronto Coach Terminal" in pairs[-1][1]
    store.close()
