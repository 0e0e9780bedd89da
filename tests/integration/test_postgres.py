"""PostgreSQL checkpoints, against a real server when SEARCHAIN_TEST_POSTGRES_URL names one."""

from __future__ import annotations

import os
import uuid

import pytest

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.state import checkpoint_serializer
from tests.conftest import ScriptedReplies, TableReader, TableRetriever

URL = os.environ.get("SEARCHAIN_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="no PostgreSQL server on this machine: set SEARCHAIN_TEST_POSTGRES_URL to run"
)


def test_a_thread_survives_in_postgres(passages):
    from langgraph.checkpoint.postgres import PostgresSaver

    question = "Where was Kevin Drew born?"
    llm = ScriptedReplies(
        replies=[
            f"[Query 1]: {question}\n[Answer 1]: Toronto",
            "Toronto [1]. So the final answer is Toronto.",
        ]
    )
    context = Context(
        llm=llm,
        retriever=TableRetriever({question: passages["drew"]}),
        reader=TableReader({"p2": ("Toronto", 3.0)}),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    with PostgresSaver.from_conn_string(URL) as saver:
        saver.serde = checkpoint_serializer()
        saver.setup()
        build_graph(checkpointer=saver).invoke({"question": question}, config, context=context)
    with PostgresSaver.from_conn_string(URL) as saver:  # a new connection reads it back
        saver.serde = checkpoint_serializer()
        state = build_graph(checkpointer=saver).get_state(config)
    assert state.values["answer"] == "Toronto" and not state.next
