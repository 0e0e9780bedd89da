"""Write the legacy threads ``tests/integration/test_legacy_threads.py`` reads back.

Run with the code of release 0.x before ``messages`` became the person's conversation (commit
98562f8), from a worktree of it, into a SQLite file or a PostgreSQL database:

    git worktree add /tmp/old 98562f8
    cd /tmp/old && PYTHONPATH=/tmp/old python /path/to/write_threads.py legacy.sqlite
    cd /tmp/old && PYTHONPATH=/tmp/old python /path/to/write_threads.py postgresql://…/db
    pg_dump --data-only --inserts … > legacy-postgres.sql   # (the test restores it)

Three threads: ``done`` (one question answered, a completion on the way), ``two`` (two
questions answered, the second a follow-up), and ``waiting`` (paused on a correction awaiting
approval). Their LLM, retriever and reader are the tests' scripted ones (tests/conftest.py).
"""

from __future__ import annotations

import sys

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.threads import open_store
from tests.conftest import PASSAGES, ScriptedReplies, TableReader, TableRetriever

Q = "Where was the creator of Spirit If... born?"
Q1, Q2 = "Who made Spirit If...?", "Where was Kevin Drew born?"
FOLLOW = "Where do Greyhound buses leave from in Toronto?"
Q3 = "Where do Greyhound buses in Toronto leave from?"
OPTIONS = {"llm": "scripted", "backend": "embedded", "index": "", "es_url": "", "es_index": ""}


def context(replies: list[str], **settings: object) -> Context:
    retriever = TableRetriever({Q1: PASSAGES["spirit"], Q2: PASSAGES["drew"], Q3: PASSAGES["bus"]})
    reader = TableReader(
        {"p1": ("Kevin Drew", 3.0), "p2": ("Toronto", 3.0), "p3": ("Toronto Coach Terminal", 3.0)}
    )
    return Context(
        llm=ScriptedReplies(replies=replies), retriever=retriever, reader=reader, **settings
    )


def main(db: str) -> None:
    store = open_store(db)
    graph = build_graph(checkpointer=store.checkpointer())
    unsolved = f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew.\n[Unsolved Query]: {Q2}"
    solved = (
        f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew.\n[Query 2]: {Q2}\n[Answer 2]: Toronto.\n"
        "[Final Content]: Kevin Drew [1] was born in Toronto [2]."
    )
    trace = "Kevin Drew [1] was born in Toronto [2]. So the final answer is Toronto."
    for thread in ("done", "two"):
        store.record(thread, OPTIONS, Q)
        graph.invoke({"question": Q}, {"configurable": {"thread_id": thread}},
                     context=context([unsolved, solved, trace]))  # fmt: skip
    bus = (
        f"[Query 1]: {Q3}\n[Answer 1]: Toronto Coach Terminal.\n[Final Content]: The terminal [1]."
    )
    graph.invoke({"question": FOLLOW}, {"configurable": {"thread_id": "two"}},
                 context=context([bus, "The Toronto Coach Terminal [1]. So the final answer is "
                                  "Toronto Coach Terminal."]))  # fmt: skip
    store.record("waiting", {**OPTIONS, "approve_corrections": True}, Q2)
    wrong = f"[Query 1]: {Q2}\n[Answer 1]: Montreal.\n[Final Content]: Montreal [1]."
    graph.invoke({"question": Q2}, {"configurable": {"thread_id": "waiting"}},
                 context=context([wrong], approve_corrections=True))  # fmt: skip
    assert graph.get_state({"configurable": {"thread_id": "waiting"}}).interrupts
    store.close()


if __name__ == "__main__":
    main(sys.argv[1])
