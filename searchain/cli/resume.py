"""``searchain resume``: continue an interrupted run, or settle a correction awaiting approval."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from searchain.cli.common import DEFAULT_DB, DbOption, ForceOption, HtmlOption, page_target
from searchain.cli.session import open_thread, run, unfinished
from searchain.decisions import pending_correction
from searchain.preload import preload


def resume(
    thread: Annotated[
        str, typer.Argument(metavar="THREAD", help="The thread id `searchain ask` printed.")
    ],
    db: DbOption = DEFAULT_DB,
    approve: Annotated[bool, typer.Option(help="Approve the pending correction.")] = False,
    reject: Annotated[bool, typer.Option(help="Reject the pending correction.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    html: HtmlOption = None,
    force: ForceOption = False,
) -> None:
    """Continue an interrupted run (Ctrl-C, a crash, or a correction waiting for approval)."""
    from langgraph.types import Command

    html = page_target(html, force, db=db)
    store, graph, context, config = open_thread(db, thread)
    with store.lock(thread):  # a run still going on this thread is not resumed twice
        state = graph.get_state(config)
        if not unfinished(state):
            raise ValueError(
                f"thread {thread!r} already finished: ask a follow-up with "
                f"`searchain ask QUESTION --thread {thread}`"
            )
        payload: Any = None
        if state.interrupts:
            if approve and reject:
                raise ValueError("pass one of --approve and --reject, not both")
            if not approve and not reject:
                pending = pending_correction(state.interrupts[0].value)
                raise ValueError(
                    f"a correction is waiting on {pending['query']!r} (LLM "
                    f"{pending['model_answer']!r} → reader {pending['answer']!r}): see it "
                    f"and its passage with `searchain show {thread}`, then pass --approve or "
                    "--reject"
                )
            payload = Command(resume="approve" if approve else "reject")
        elif approve or reject:
            raise ValueError(f"thread {thread!r} has no correction waiting for approval")
        preload(context)
        run(graph, payload, config, context, as_json, html)
