"""The graphs the team server serves: each run takes a place in its user's fair share first.

Named by ``aegra.json`` as graph factories. The server calls a factory each time it needs the
graph: to execute a run, and to read a thread's state or a graph's schema, and holds what it
returns (an async context manager) open while it uses the graph. For a run, the factory takes
the run's place in :mod:`searchain.server.fair_share` before its first step, whatever route
made the run (the place counts until the server records the run's end), or refuses to start it,
and stops the run's reading processes when it ends. Before it hands out a graph it installs
the shared server's policy on settings (:func:`.policy.shared_run_policy`): a run here never
takes a model, a file, an index or a URL from its caller or its thread's state.
``langgraph dev`` (single-user) serves the graphs themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph_sdk.runtime import ServerRuntime

from searchain.context import use_run_policy
from searchain.documents.reading import run_readings
from searchain.server.fair_share import ADMISSION_KEY, take
from searchain.server.policy import shared_run_policy


@asynccontextmanager
async def served(
    graph: CompiledStateGraph, config: RunnableConfig, runtime: ServerRuntime
) -> AsyncIterator[CompiledStateGraph]:
    """``graph``, once a run it is to execute has its place in its user's fair share.

    The server holds this open while the run executes: when the run ends, cancelled or not, the
    processes reading its files are killed (:func:`.reading.run_readings`) before the server
    records the end, so a reading never outlives its run's place in the fair share.
    """
    use_run_policy(shared_run_policy)  # callers are not the operator, whichever graph they run
    if runtime.access_context != "threads.create_run":  # a state, a history, a schema
        yield graph
        return
    admission = (config.get("metadata") or {}).get(ADMISSION_KEY)
    run_id = str(config["configurable"]["run_id"])
    user = runtime.ensure_user().identity
    await take(user, run_id, admission if isinstance(admission, str) else None)
    with run_readings():
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
