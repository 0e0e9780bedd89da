"""SIMULATED evaluation of SearChain's IR side on MuSiQue: real BM25, simulated LLM and reader.

Run: .venv/bin/python benchmarks/simulated_searchain.py [--split report] [--p 0 0.3 0.6] [--u 0.1]

Everything printed here is SIMULATED (searchain.eval.simulated): the LLM answers from the gold
decomposition, wrong with probability p and [Unsolved Query] with probability u; the reader
recognises gold paragraphs. Retrieval is real BM25 over the real pooled corpus. Figures:
cover-EM of the final answer; correction precision (corrections that turned a wrong hop into the
gold one / all corrections), correction recall (wrong hops corrected / wrong hops reached);
misleading rate (right hops turned wrong / right hops reached); completions; mean rounds.
"""

import argparse
import tempfile
from pathlib import Path

from searchain.context import Context
from searchain.eval.datasets import data_dir, load_records, pooled_corpus, records
from searchain.eval.metrics import cover_em
from searchain.eval.simulated import SimulatedLLM, SimulatedReader
from searchain.graph.searchain import build_graph
from searchain.text import normalize_answer
from searchain.tools.bm25 import BM25Index


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=None)
    parser.add_argument("--split", default="report", choices=["tune", "report"])
    parser.add_argument("--p", type=float, nargs="+", default=[0.0, 0.3, 0.6])
    parser.add_argument("--u", type=float, default=0.1)
    args = parser.parse_args()
    root = data_dir(args.data)
    pairs = list(
        zip(
            load_records(root, "musique", args.split),
            records(root, "musique", args.split),
            strict=True,
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        index = BM25Index.build(pooled_corpus(root), Path(tmp) / "index")
        reader = SimulatedReader(pairs)
        graph = build_graph()
        print(
            f"SIMULATED LLM and reader; real BM25 over {len(index):,} passages; MuSiQue "
            f"{args.split} split, {len(pairs)} questions, u={args.u}"
        )
        for p in args.p:
            llm = SimulatedLLM.for_records(pairs, p=p, u=args.u)
            em = rounds = corrections = good = wrong_reached = fixed = right_reached = misled = 0
            completions = 0
            for record, _ in pairs:
                gold_answers = {normalize_answer(h.question): h.answer for h in record.hops}
                out = graph.invoke(
                    {"question": record.question},
                    context=Context(llm=llm, retriever=index, reader=reader),
                )
                em += cover_em(out["answer"], record.answers)
                rounds += out["rounds"]
                for node in out["nodes"]:
                    gold = gold_answers.get(normalize_answer(node.query))
                    if node.source is None or gold is None:
                        continue
                    llm_right = bool(node.llm_answer) and cover_em(node.llm_answer, [gold]) == 1
                    now_right = cover_em(node.answer, [gold]) == 1
                    if node.source == "completed":
                        completions += 1
                        continue
                    if llm_right:
                        right_reached += 1
                        misled += node.source == "corrected" and not now_right
                    else:
                        wrong_reached += 1
                        fixed += node.source == "corrected" and now_right
                    if node.source == "corrected":
                        corrections += 1
                        good += now_right and not llm_right
            n = len(pairs)
            print(
                f"p={p:.1f}: cover-EM {em / n:.3f}; corrections {corrections} "
                f"(precision {good / max(corrections, 1):.3f}, recall "
                f"{fixed / max(wrong_reached, 1):.3f} of {wrong_reached} wrong hops); "
                f"misleading {misled}/{right_reached}; completions {completions}; "
                f"rounds/question {rounds / n:.2f}"
            )


if __name__ == "__main__":
    main()
