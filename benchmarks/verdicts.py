"""Re-judge the reasoning steps of `searchain eval` result files with today's lexical rule.

The verdict each step was given when it ran (``support`` in the stored tree) beside the verdict
the current rule (:func:`searchain.support.lexical_verdict`) gives the same passage, answer,
reader span and query, so a change of the rule is measured on the same model output::

    python benchmarks/verdicts.py runs/musique-searchain.jsonl [more.jsonl ...] [--changed 10]

Prints, per file, the steps on the answers' reasoning paths by verdict (stored → now), and the
first ``--changed`` steps whose verdict changed. Only lexical runs are re-judged (an NLI run's
verdicts are the model's).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from searchain.support import lexical_verdict

VALUES = ("stated", "unstated", "unverifiable")


def steps(path: Path) -> list[dict]:
    """The path steps of every SearChain question in a results file (lexical runs only)."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("config", {}).get("verifier", "lexical") != "lexical":
            continue
        nodes = record.get("result", {}).get("nodes", [])
        found += [n for n in nodes if n.get("step") is not None and n.get("passage")]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--changed", type=int, default=10, help="changed steps to list")
    args = parser.parse_args()
    for path in args.results:
        judged = Counter()
        changed = []
        for node in steps(path):
            now = lexical_verdict(
                node["passage"]["text"],
                node["answer"],
                node.get("reader_answer") or "",
                node["query"],
                long_form=False,
                alpha=0.35,
            )
            judged[(node.get("support"), now)] += 1
            if now != node.get("support"):
                changed.append((node["query"], node["answer"], node.get("support"), now))
        total = sum(judged.values())
        print(f"{path.name}: {total} steps with a passage")
        for value in VALUES:
            before = sum(n for (old, _), n in judged.items() if old == value)
            after = sum(n for (_, new), n in judged.items() if new == value)
            print(f"  {value:>12}: {before:4d} stored → {after:4d} now")
        for query, answer, old, new in changed[: args.changed]:
            print(f"  changed {old} → {new}: {query!r} → {answer!r}")


if __name__ == "__main__":
    main()
