"""``searchain show``: every question a thread answered, in the terminal or as an HTML page."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape

from searchain.cli.common import DEFAULT_DB, DbOption, ForceOption, HtmlOption, err, page_target
from searchain.cli.render import show_pending, show_result, show_tree
from searchain.cli.session import documents_of, open_threads, thread_context
from searchain.text import counted


def question_states(graph: Any, config: dict[str, Any]) -> list[dict[str, Any]]:
    """The final state of each question a thread finished, oldest first.

    The state keeps only the current question's tree (earlier ones as short turns); the
    checkpoints keep every step, so each question's tree is read back from the last checkpoint
    of its run (nothing left to run, a stop reason set).
    """
    finished: dict[int, dict[str, Any]] = {}
    for snapshot in graph.get_state_history(config):  # newest first
        values = snapshot.values
        if snapshot.next or not values.get("stop_reason"):
            continue
        finished.setdefault(len(values.get("history", [])), values)
    return [finished[turn] for turn in sorted(finished)]


def show(
    thread: Annotated[
        str, typer.Argument(metavar="THREAD", help="The thread (see `searchain threads`).")
    ],
    db: DbOption = DEFAULT_DB,
    html: HtmlOption = None,
    force: ForceOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show every question THREAD answered: answer, citations and Tree-of-Reasoning."""
    from searchain.output import result_to_json

    html = page_target(html, force, db=db)
    store, graph = open_threads(db, create=False)
    store.known(thread)  # an unknown or stale thread: one clear line
    config = {"configurable": {"thread_id": thread}}
    states = question_states(graph, config)
    current = graph.get_state(config)
    pending = current.interrupts[0].value if current.interrupts else None
    if not states and pending is None:
        raise ValueError(
            f"thread {thread!r} has no finished question yet: `searchain resume {thread}`"
        )
    results = [result_to_json(state) for state in states]
    if html is not None and results:
        from searchain.page import write_page

        documents = documents_of(thread_context(graph, thread))
        write_page(
            html, results, title=f"searchain thread {thread}", documents=documents, thread=thread
        )
        count = counted(len(results), "question")
        err.print(f"wrote {escape(str(html))} ({count})")
    elif html is not None:
        err.print("no page yet: no question is finished; approve or reject first")
    if as_json:
        waiting = {"waiting_for": pending} if pending is not None else {}
        sys.stdout.write(
            json.dumps({"thread": thread, "questions": results, **waiting}, ensure_ascii=False)
            + "\n"
        )
    elif html is None:
        for state in states:
            show_result(state)
    if pending is not None and not as_json:  # the question it stopped at, and why
        show_tree(current.values)
        show_pending(pending, thread)
