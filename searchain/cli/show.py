"""``searchain show``: every question a thread answered, in the terminal or as an HTML page."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape

from searchain.cli.common import DEFAULT_DB, DbOption, HtmlOption, err
from searchain.cli.render import show_result
from searchain.cli.session import open_threads


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
    thread: Annotated[str, typer.Argument(help="The thread (see `searchain threads`).")],
    db: DbOption = DEFAULT_DB,
    html: HtmlOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show every question THREAD answered: answer, citations and Tree-of-Reasoning."""
    from searchain.output import result_to_json

    store, graph = open_threads(db, create=False)
    store.known(thread)  # an unknown or stale thread: one clear line
    states = question_states(graph, {"configurable": {"thread_id": thread}})
    if not states:
        raise ValueError(
            f"thread {thread!r} has no finished question yet: `searchain resume {thread}`"
        )
    results = [result_to_json(state) for state in states]
    if html is not None:
        from searchain.page import write_page

        write_page(html, results, title=f"searchain thread {thread}")
        count = f"{len(results)} question{'s' * (len(results) != 1)}"
        err.print(f"wrote {escape(str(html))} ({count})", soft_wrap=True)
    if as_json:
        sys.stdout.write(
            json.dumps({"thread": thread, "questions": results}, ensure_ascii=False) + "\n"
        )
    elif html is None:
        for state in states:
            show_result(state)
