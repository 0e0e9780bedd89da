"""The graphs the team server serves: each run holds a place in its user's fair share as it runs.

Named by ``aegra.json`` as graph factories. The server calls a factory each time it needs the
graph: to execute a run, and to read a thread's state or a graph's schema. For a run, the factory
is a context manager the server holds open for as long as the run executes, so the run's place in
:mod:`searchain.server.fair_share` is taken before its first step and given back after its last,
whatever route made the run. ``langgraph dev`` (single-user) serves the graphs themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph_sdk.runtime import ServerRuntime

from searchain.server.fair_share import ADMISSION_KEY, running


@asynccontextmanager
async def served(
    graph: CompiledStateGraph, config: RunnableConfig, runtime: ServerRuntime
) -> AsyncIterator[CompiledStateGraph]:
    """``graph``, within its user's fair share while it executes a run."""
    if runtime.access_context != "threads.create_run":  # a state, a history, a schema: no run
        yield graph
        return
    user = runtime.ensure_user().identity
    run_id = str(config["configurable"]["run_id"])
    admission = (config.get("metadata") or {}).get(ADMISSION_KEY)
    async with running(user, run_id, admission if isinstance(admission, str) else None):
        yield graph


def searchain(
    config: RunnableConfig, runtime: ServerRuntime
) -> AbstractAsyncContextManager[CompiledStateGraph]:
    """SearChain (``searchain.graph.searchain``), served."""
    from searchain.graph.searchain import graph

    return served(graph, config, runtime)


def ircot(
    config: RunnableConfig, runtime: ServerRuntime
) -> AbstractAsyncContextManager[CompiledStateGraph]:
    """IRCoT (``searchain.graph.ircot``), served."""
    from searchain.graph.ircot import graph

    return served(graph, config, runtime)
