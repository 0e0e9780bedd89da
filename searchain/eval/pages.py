"""One Tree-of-Reasoning page per evaluated question, linked from the report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from searchain.eval.figures import main_metric
from searchain.eval.runner import Run
from searchain.page import write_page


def question_pages(
    runs: dict[Run, list[dict[str, Any]]], names: dict[Run, str], out: Path
) -> list[str]:
    """Write ``pages/<run>/<question id>.html`` for every result that kept its tree.

    Returns the report's section linking them, one line per run (none for runs without trees:
    IRCoT, the baselines, and results written before trees were kept), each link marked ✓ or
    ✗ by the main metric.
    """
    lines = ["", "## Every question's Tree-of-Reasoning (✓ right, ✗ wrong by the main metric)", ""]
    for run, results in runs.items():
        kept = [r for r in results if "result" in r]
        if not kept:
            continue
        folder = Path("pages") / _slug(names[run])
        links = []
        for result in kept:
            name = folder / f"{_slug(str(result['id']))}.html"
            write_page(out / name, [result["result"]], banner=banner(names[run], result))
            mark = "✓" if main_metric(result) >= 0.5 else "✗"
            links.append(f"[{result['id']} {mark}]({name.as_posix()})")
        lines.append(f"- {names[run]}: " + " · ".join(links))
    return lines if len(lines) > 3 else []


def banner(name: str, result: dict[str, Any]) -> list[str]:
    """What a question's page says of its evaluation: run, gold answer, scores, simulation."""
    lines = []
    if result.get("simulated"):
        lines.append(
            "SIMULATED: a simulated LLM and/or reader answered (drawn from MuSiQue's gold "
            "decompositions); this page shows retrieval and SearChain's decision logic, not a "
            "language model."
        )
    scores = ", ".join(f"{k} {v:.3f}" for k, v in sorted(result.get("metrics", {}).items()))
    mark = "right" if main_metric(result) >= 0.5 else "wrong"
    lines += [
        f"Run: {name}, question {result['id']}.",
        f"Gold answer: {' | '.join(map(str, result.get('answers', []))) or '(none)'}; "
        f"predicted (the model's own answer): {result.get('prediction') or '(none)'}.",
        f"Scored {mark}: {scores}.",
    ]
    return lines


def _slug(text: str) -> str:
    """A file name from a run label or question id: letters, digits, dots, dashes."""
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("._") or "run"
