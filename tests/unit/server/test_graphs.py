"""The served graphs: factories the server calls per run, holding a place only for a run."""

from __future__ import annotations

import asyncio
import typing
from types import SimpleNamespace

import pytest

from tests.conftest import require_module


def test_the_factories_are_recognised_as_taking_the_server_runtime():
    """Aegra passes a run's config and runtime to a factory whose annotations say so."""
    require_module("langgraph_sdk", "studio")
    from langgraph_sdk.runtime import ServerRuntime

    from searchain.server import graphs

    for factory in (graphs.searchain, graphs.ircot):
        hints = typing.get_type_hints(factory)
        assert hints["runtime"] is ServerRuntime and "config" in hints


@pytest.mark.parametrize("access", ["threads.read", "threads.update", "assistants.read"])
def test_reading_a_state_or_a_schema_takes_no_place(monkeypatch, access):
    """Only a run's execution counts: no database is touched otherwise (none is set here)."""
    require_module("langgraph_sdk", "studio")
    from searchain.graph.searchain import graph
    from searchain.server.graphs import searchain

    monkeypatch.delenv("DATABASE_URL", raising=False)

    async def enter() -> object:
        return await searchain({"configurable": {}}, SimpleNamespace(access_context=access))

    assert asyncio.run(enter()) is graph
