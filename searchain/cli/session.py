"""A checkpointed run as ``ask`` and ``resume`` drive it: build, preload, stream, show."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape

from searchain.cli.common import err
from searchain.cli.render import show_pending, show_progress, show_result, show_tree


def unfinished(state: Any) -> bool:
    """Whether a thread's last run stopped before its end (steps to run or writes to apply).

    ``state.next`` alone is not enough: a step that finished just before a crash has its writes
    saved as pending and no successor yet, so ``next`` is empty while the run is not done.
    """
    return bool(state.next or state.tasks)


SETTINGS_KEY = "searchain_settings"
"""The checkpoint metadata key under which a CLI run keeps its settings (JSON)."""


def run_config(thread: str, context: Any) -> dict[str, Any]:
    """The config a CLI run of ``thread`` goes with: its settings in every checkpoint it writes.

    LangGraph copies a config's string metadata into each checkpoint's, from the run's input on:
    a run killed in its first step leaves them behind, for ``resume`` to rebuild the same
    models and index from (the state's own ``settings`` come with the first LLM step). They are
    the fields that differ from their declared defaults, so what ``SEARCHAIN_*`` set in this
    shell is kept for a resume in another.
    """
    from searchain.context import run_settings

    settings = json.dumps(run_settings(context))
    return {"configurable": {"thread_id": thread}, "metadata": {SETTINGS_KEY: settings}}


def thread_context(graph: Any, thread: str) -> Any:
    """The Context a thread's runs set, from its last checkpoint alone.

    A CLI run's settings are in the checkpoint's metadata (:func:`run_config`); a thread run
    from Python or a server keeps them in its state (``context.thread_settings``). A thread
    started with an object (a chat model, a retriever) fails in one line.
    """
    from types import SimpleNamespace

    from searchain.context import context_of

    snapshot = graph.get_state({"configurable": {"thread_id": thread}})
    written = (snapshot.metadata or {}).get(SETTINGS_KEY)
    saved = json.loads(written) if written else snapshot.values.get("settings") or {}
    return context_of(SimpleNamespace(context=None), saved)


def open_threads(db: str, *, create: bool = True) -> tuple[Any, Any]:
    """The thread store at ``db`` (SQLite path or PostgreSQL URL) and the graph on it.

    Read-only commands pass ``create=False``: a database that is not there is an error, never
    a new file.
    """
    from searchain.graph.searchain import build_graph
    from searchain.threads import open_store

    store = open_store(db, create=create)
    return store, build_graph(checkpointer=store.checkpointer())


def open_thread(db: str, thread: str) -> tuple[Any, Any, Any, dict[str, Any]]:
    """``(store, graph, context, config)`` of an existing thread: its own settings, or one line."""
    store, graph = open_threads(db)
    store.known(thread)  # an unknown or stale thread: one clear line
    context = thread_context(graph, thread)
    return store, graph, context, run_config(thread, context)


def documents_of(context: Any) -> Path | None:
    """The folder of the embedded documents index a run searches (its page links there)."""
    if context.retriever != "bm25":
        return None
    from searchain.tools.retrieval.embedded.directory.files import documents_folder

    return documents_folder(context.index)


def say_settings(context: Any) -> None:
    """What ``--reader auto`` and θ stand for in this run, as it starts (after every check)."""
    from searchain.tools.readers.auto import auto_reader
    from searchain.tools.readers.calibration import theta_line

    if context.reader == "auto":
        err.print(escape(auto_reader().line()))
    if context.verify and context.task_prompt().interactive:
        err.print(escape(theta_line(context.reader, context.llm, context.theta)))


def interrupt_handler(thread: str) -> Callable[[int, Any], None]:
    """A SIGINT handler that stops the run at once and says how to continue it.

    It stops wherever the run is (a model call, a worker thread, a checkpoint write), as a crash
    would: every finished step is already checkpointed (durability="sync"), and the step under
    way is redone by ``resume``. The line goes straight to file descriptor 2, not through the
    console: the signal may land while the main thread is inside a console print, whose buffer
    holds a nested print until the outer one ends, and ``os._exit`` never lets it end.
    """

    def stop(signum: int, frame: Any) -> None:
        # What was printed before goes first; a flush the main thread is inside is reentrant.
        with contextlib.suppress(OSError, RuntimeError, ValueError):
            sys.stderr.flush()
        os.write(2, f"interrupted: continue with `searchain resume {thread}`\n".encode())
        os._exit(130)

    return stop


def run(
    graph: Any,
    payload: Any,
    config: dict[str, Any],
    context: Any,
    as_json: bool,
    html: Path | None = None,
) -> None:
    """Stream one run, checkpointing every step; show the result or what it waits for.

    With ``html``, the finished question's page is written there too.
    """
    from searchain.output import result_to_json

    thread = config["configurable"]["thread_id"]
    say_settings(context)
    err.print(f"[dim]thread {thread}[/dim]")

    previous = signal.signal(signal.SIGINT, interrupt_handler(thread))
    try:
        for mode, chunk in graph.stream(
            payload, config, context=context, stream_mode=["custom"], durability="sync"
        ):
            if mode == "custom":
                show_progress(chunk)
    finally:
        signal.signal(signal.SIGINT, previous)
    state = graph.get_state(config)
    if state.interrupts:
        pending = state.interrupts[0].value
        if as_json:
            sys.stdout.write(json.dumps({"thread": thread, "waiting_for": pending}) + "\n")
            return
        show_tree(state.values)  # the reasoning so far, then the step it stopped at
        show_pending(pending, thread)
        if html is not None:
            err.print(
                f"no page yet: once it finishes, `searchain show {thread} --html {html}`",
            )
        return
    result = state.values
    if html is not None:
        from searchain.page import write_page

        write_page(html, [result_to_json(result)], documents=documents_of(context), thread=thread)
        err.print(f"wrote {escape(str(html))}")
    if as_json:
        sys.stdout.write(
            json.dumps({"thread": thread, **result_to_json(result)}, ensure_ascii=False) + "\n"
        )
    else:
        show_result(result)
