"""``searchain edit``: a person corrects a step of a thread's question, and the LLM re-plans."""

from __future__ import annotations

from typing import Annotated

import typer

from searchain.cli.common import DEFAULT_DB, DbOption, ForceOption, HtmlOption, page_target
from searchain.cli.session import open_thread, run, unfinished
from searchain.preload import preload


def edit(
    thread: Annotated[
        str, typer.Argument(metavar="THREAD", help="The thread (see `searchain threads`).")
    ],
    node: Annotated[
        int,
        typer.Argument(metavar="NODE", help="The step's node id, as `searchain show` lists it."),
    ],
    answer: Annotated[str, typer.Option(help="The step's right answer.")],
    db: DbOption = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    html: HtmlOption = None,
    force: ForceOption = False,
) -> None:
    """Replace step NODE's answer with yours; the LLM re-plans from it, then traces again."""
    from searchain.nodes.searchain.edit import check_edit
    from searchain.state import Edit
    from searchain.text import clean_text

    html = page_target(html, force, db=db)
    store, graph, context, config = open_thread(db, thread)
    request = Edit(node, clean_text(answer))
    with store.lock(thread):  # not while another run works on the thread
        state = graph.get_state(config)
        if unfinished(state):
            raise ValueError(
                f"thread {thread!r} has an unfinished run: `searchain resume {thread}` first"
            )
        check_edit(state.values.get("nodes", []), request)  # one line, before any model loads
        preload(context)
        payload = {"edit": {"node": node, "answer": request.answer}}
        run(graph, payload, config, context, as_json, html)
