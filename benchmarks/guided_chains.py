"""How often the offline model writes a chain searchain can read, paper prompt or guided.

    python benchmarks/guided_chains.py [--questions 20] [--data ../shared/data]

Asks SmolLM2 (``--llm local``, greedy) for round one's chain of the demo question and of the first
``--questions`` MuSiQue tuning questions, once with Fig. 11's prompt as published (unconstrained)
and once with the guided prompt and grammar (``searchain/prompts/guided.toml``), and prints per
prompt the questions whose reply held at least one sub-query, the sub-queries per chain, the
chains whose first sub-query restates the question word for word, those that copy a query of
the prompt's demonstrations, and the seconds per chain.
Greedy replies differ between CPUs, so the counts are this machine's. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from langchain_core.messages import HumanMessage

from searchain.context import Context
from searchain.eval.datasets import data_dir
from searchain.nodes.searchain.chain import parse_chain
from searchain.text import normalize_answer
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

DEMO = "Lorenzo Monaco was influenced by which Italian painter and architect?"
MAX_TOKENS = 400  # GenerateCoQ's bound


def questions(root: Path, count: int) -> list[str]:
    """The demo question, then the first ``count`` of MuSiQue's tuning split."""
    lines = (root / "musique" / "dev_200_with_paragraphs.jsonl").read_text().splitlines()
    return [DEMO, *(json.loads(line)["question"] for line in lines[:count])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    asked = questions(data_dir(args.data), args.questions)
    llm = resolve_llm("local")
    for mode in ("paper", "guided"):
        context = Context(llm="local", chain_prompt=mode)
        guided = context.guided_prompt("qa", llm)
        task = context.task_prompt("qa")
        chains, steps, restated, copied, seconds = 0, 0, 0, 0, 0.0
        for question in asked:
            prompt = (guided or task).prompt(question)
            started = time.perf_counter()
            reply = generate(
                llm,
                [HumanMessage(prompt)],
                stop=list(task.stop),
                max_tokens=MAX_TOKENS,
                grammar=guided.grammar if guided else None,
            )
            seconds += time.perf_counter() - started
            nodes = parse_chain(reply).nodes
            chains += bool(nodes)
            steps += len(nodes)
            restated += bool(nodes) and normalize_answer(nodes[0].query) == normalize_answer(
                question
            )
            copied += any(node.query in task.template for node in nodes)
        print(
            f"{mode:6}: a chain for {chains} of {len(asked)} questions, "
            f"{steps / max(chains, 1):.1f} sub-queries per chain, {restated} restating the "
            f"question, {copied} copying a demonstration's query, "
            f"{seconds / len(asked):.1f} s per chain"
        )


if __name__ == "__main__":
    main()
