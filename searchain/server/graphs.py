"""The graphs the team server serves: each run takes a place in its user's fair share first.

Named by ``aegra.json`` as graph factories. The server calls a factory each time it needs the
graph: to execute a run, and to read a thread's state or a graph's schema. For a run, the factory
takes the run's place in :mod:`searchain.server.fair_share` before its first step, whatever route
made the run (the place counts until the server records the run's end), or refuses to start it.
``langgraph dev`` (single-user) serves the graphs themselves.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph_sdk.runtime import ServerRuntime

from searchain.server.fair_share import ADMISSION_KEY, take


async def served(
    graph: CompiledStateGraph, config: RunnableConfig, runtime: ServerRuntime
) -> CompiledStateGraph:
    """``graph``, once a run it is to execute has its place in its user's fair share."""
    if runtime.access_context == "threads.create_run":  # not a state, a history, a schema
        admission = (config.get("metadata") or {}).get(ADMISSION_KEY)
        run_id = str(config["configurable"]["run_id"])
        user = runtime.ensure_user().identity
        await take(user, run_id, admission if isinstance(admission, str) else None)
    return graph


def searchain(
    config: RunnableConfig, runtime: ServerRuntime
) -> Coroutine[Any, Any, CompiledStateGraph]:
    """SearChain (``searchain.graph.searchain``), served."""
    from searchain.graph.searchain import graph

    return served(graph, config, runtime)


def ircot(
    config: RunnableConfig, runtime: ServerRuntime
) -> Coroutine[Any, Any, CompiledStateGraph]:
    """IRCoT (``searchain.graph.ircot``), served."""
    from searchain.graph.ircot import graph

    return served(graph, config, runtime)
