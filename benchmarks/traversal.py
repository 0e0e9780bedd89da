"""Per-question latency, sequential vs parallel traversal, with a reader that takes 1 s per call.

Run:
    .venv/bin/python benchmarks/traversal.py [--delay 1.0] [--nodes 4]

A scripted LLM answers instantly with one chain of ``--nodes`` sub-queries, over the demo index;
the reader sleeps ``--delay`` seconds per call (an API-backed reader: the time is spent waiting,
not computing) and agrees with the LLM, so every node is walked. Three questions per mode, the
same script and reader for both; prints seconds per question and the ratio. Asserts nothing.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's tests/ doubles

from searchain import demo_corpus
from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.types import ReaderAnswer
from tests.conftest import ScriptedReplies

QUERIES = [
    "Who was Lorenzo Monaco?",
    "Which painter influenced Lorenzo Monaco?",
    "Where was Agnolo Gaddi born?",
    "What did Agnolo Gaddi paint?",
    "Which city is Santa Croce in?",
    "When did Lorenzo Monaco die?",
]


class SlowReader:
    """Agrees with everything, after ``delay`` seconds per call (one call per passage)."""

    threshold = 0.5

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def read(self, query, passages):
        time.sleep(self.delay)
        return [ReaderAnswer("", 0.0) for _ in passages]


def chain(n: int) -> str:
    lines = []
    for i, query in enumerate(QUERIES[:n], 1):
        lines += [f"[Query {i}]: {query}", f"[Answer {i}]: yes."]
    return "\n".join([*lines, "[Final Content]: So the final answer is yes [1]."])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--questions", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = embedded.build(read_corpus(demo_corpus()), f"{tmp}/index")
        graph = build_graph()
        reader = SlowReader(args.delay)
        results = {}
        for parallel in (False, True):
            started = time.perf_counter()
            for _ in range(args.questions):
                llm = ScriptedReplies(replies=[chain(args.nodes), "Yes [1]. So the answer is yes."])
                context = Context(
                    llm=llm, retriever=index, reader=reader, parallel_traversal=parallel
                )
                out = graph.invoke({"question": "Who influenced Lorenzo Monaco?"}, context=context)
                assert len(out["nodes"]) == args.nodes
            results[parallel] = (time.perf_counter() - started) / args.questions
        print(
            f"{args.nodes}-node chain, reader {args.delay:.1f} s per call: sequential "
            f"{results[False]:.2f} s/question, parallel {results[True]:.2f} s/question "
            f"(x{results[False] / results[True]:.1f})"
        )


if __name__ == "__main__":
    main()
