"""One Tree-of-Reasoning page per evaluated question, linked from the report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from searchain.eval.runner import Run
from searchain.page import write_page


def question_pages(
    runs: dict[Run, list[dict[str, Any]]], names: dict[Run, str], out: Path
) -> list[str]:
    """Write ``pages/<run>/<question id>.html`` for every result that kept its tree.

    Returns the report's section linking them, one line per run ("–" for runs without trees:
    IRCoT, the baselines, and results written before trees were kept).
    """
    lines = ["", "## Every question's Tree-of-Reasoning", ""]
    for run, results in runs.items():
        kept = [r for r in results if "result" in r]
        if not kept:
            continue
        folder = Path("pages") / _slug(names[run])
        links = []
        for result in kept:
            name = folder / f"{_slug(str(result['id']))}.html"
            write_page(out / name, [result["result"]])
            links.append(f"[{result['id']}]({name.as_posix()})")
        lines.append(f"- {names[run]}: " + " · ".join(links))
    return lines if len(lines) > 3 else []


def _slug(text: str) -> str:
    """A file name from a run label or question id: letters, digits, dots, dashes."""
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("._") or "run"
