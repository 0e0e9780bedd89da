"""``searchain threads``: the conversations in a thread database, with their status."""

from __future__ import annotations

import datetime

from rich.markup import escape

from searchain.cli.common import DEFAULT_DB, DbOption, out
from searchain.cli.session import open_threads, unfinished


def threads(db: DbOption = DEFAULT_DB) -> None:
    """List the threads in --db with their status and latest question, newest first."""
    store, graph = open_threads(db, create=False)
    rows = []
    for thread_id, created, question in store.threads():
        state = graph.get_state({"configurable": {"thread_id": thread_id}})
        if created is None:  # made from Python: its latest checkpoint says when and what
            stamp = datetime.datetime.fromisoformat(state.created_at) if state.created_at else None
            created = stamp.timestamp() if stamp else 0.0
            question = str(state.values.get("question_asked") or state.values.get("question", ""))
        if store.busy(thread_id):
            status = "running"
        elif state.interrupts:
            status = "waiting for approval"
        elif unfinished(state):
            status = "interrupted"
        else:
            status = "finished" if state.values else "not started"
        rows.append((created, thread_id, status, question))
    rows.sort(key=lambda row: -row[0])  # threads made from Python among the others, by time
    width = max((len(row[1]) for row in rows), default=0)
    for created, thread_id, status, question in rows:
        when = datetime.datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M")
        out.print(f"{thread_id:<{width}}  {when}  {status:<20}  {escape(question)}")
