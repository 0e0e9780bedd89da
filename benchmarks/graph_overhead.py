"""Graph and checkpoint cost per step, with instant models.

Run:
    .venv/bin/python benchmarks/graph_overhead.py [--questions 200]

A scripted LLM writes a 4-node chain, an in-memory retriever and reader answer at once, so what is
timed is LangGraph's own work per step and what the checkpointer adds: none, the in-memory saver,
and the SQLite file the CLI writes (``searchain.threads.open_checkpointer``, WAL). Also prints the
bytes one question's checkpoints take in SQLite. Asserts nothing.
"""

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's tests/ doubles

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.state import checkpoint_serializer
from searchain.threads import open_checkpointer
from searchain.types import Passage, ReaderAnswer
from tests.conftest import ScriptedReplies

QUERIES = [f"Who is person number {i}?" for i in range(4)]
PAIRS = [(f"[Query {i}]: {q}", f"[Answer {i}]: P{i}.") for i, q in enumerate(QUERIES, 1)]
CHAIN = "\n".join([line for pair in PAIRS for line in pair] + ["[Final Content]: P4 [4]."])
TEXT = "A passage of about the usual length, " * 12


class Retriever:
    def search(self, query, k=1):
        return [Passage(f"id-{query}", "Title", TEXT + query)]


class Reader:
    threshold = 0.5

    def read(self, query, passages):
        return [ReaderAnswer("", 0.0) for _ in passages]


def run(graph, questions: int, threaded: bool) -> tuple[float, int]:
    steps = 0
    started = time.perf_counter()
    for i in range(questions):
        llm = ScriptedReplies(replies=[CHAIN, "P4 [4]. So the final answer is P4."])
        context = Context(llm=llm, retriever=Retriever(), reader=Reader())
        config = {"configurable": {"thread_id": f"t{i}"}} if threaded else None
        for _ in graph.stream({"question": "Who?"}, config, context=context):
            steps += 1
    return (time.perf_counter() - started) * 1000 / steps, steps


def sqlite_costs(questions: int) -> tuple[float, int, int]:
    """Milliseconds per step with the CLI's SQLite checkpointer, and the bytes its checkpoints
    and its pending writes take for ``questions`` questions (docs/conversations.md quotes them)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "threads.db"
        with open_checkpointer(str(db)) as saver:
            sqlite, _ = run(build_graph(saver), questions, threaded=True)
        with sqlite3.connect(db) as conn:
            size = conn.execute(
                "SELECT SUM(LENGTH(checkpoint)) + SUM(LENGTH(metadata)) FROM checkpoints"
            ).fetchone()[0]
            writes = conn.execute("SELECT SUM(LENGTH(value)) FROM writes").fetchone()[0] or 0
    return sqlite, size, writes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=200)
    args = parser.parse_args()
    run(build_graph(), 5, threaded=False)  # warm up imports and caches
    none, steps = run(build_graph(), args.questions, threaded=False)
    memory, _ = run(build_graph(InMemorySaver(serde=checkpoint_serializer())), args.questions, True)
    sqlite, size, writes = sqlite_costs(args.questions)
    per_question = steps // args.questions
    print(f"{args.questions} questions, {per_question} graph steps each (instant models)")
    print(f"no checkpointer : {none:.2f} ms/step")
    print(f"in-memory saver : {memory:.2f} ms/step (+{memory - none:.2f})")
    print(f"SQLite (WAL)    : {sqlite:.2f} ms/step (+{sqlite - none:.2f})")
    print(
        f"SQLite bytes per question: checkpoints {size / args.questions / 1024:.1f} KiB, "
        f"pending writes {writes / args.questions / 1024:.1f} KiB"
    )


if __name__ == "__main__":
    main()
