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
        async with searchain({"configurable": {}}, SimpleNamespace(access_context=access)) as got:
            return got

    assert asyncio.run(enter()) is graph


def test_a_runs_reading_processes_end_with_it_and_none_starts_after(monkeypatch):
    """Issue 67: cancelling a run left its DOCX being parsed, 15 s of CPU in the next 20 s."""
    require_module("langgraph_sdk", "studio")
    import contextvars
    import threading

    import searchain.server.graphs as graphs
    from searchain.documents.extracted import Unreadable
    from searchain.documents.reading import Reader

    async def take(user, run_id, admission):
        return None

    monkeypatch.setattr(graphs, "take", take)
    runtime = SimpleNamespace(
        access_context="threads.create_run", ensure_user=lambda: SimpleNamespace(identity="u")
    )
    reader, later = Reader(), Reader()
    go_on, outcome, thread = threading.Event(), [], []

    def next_file() -> None:  # the node's thread, still going after its run has ended
        go_on.wait()
        try:
            later.read("text", b"Another file.\n", "b.txt")
        except Unreadable as exc:
            outcome.append(str(exc))

    async def run() -> None:
        async with graphs.searchain({"configurable": {"run_id": "r"}}, runtime):
            await asyncio.to_thread(reader.read, "text", b"A file.\n", "a.txt")
            assert reader._child is not None and reader._child.poll() is None
            context = contextvars.copy_context()
            thread.append(threading.Thread(target=context.run, args=(next_file,)))
            thread[0].start()
            raise asyncio.CancelledError  # cancelled while its reading process lives

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(run())
    child = reader._child
    assert child is not None and child.poll() is not None  # killed when the run ended
    go_on.set()
    thread[0].join(timeout=600)
    assert outcome == ["its run ended before it was read"]
    assert later._child is None or later._child.poll() is not None
    # Outside any run (the CLI, a Python caller), a reader reads.
    with Reader() as free:
        assert free.read("text", b"Words.\n", "c.txt").document.sections
