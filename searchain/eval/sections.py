"""The report's title, and its tables of figures read off each run (replies, citations, hops)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from searchain.eval.runner import Run
from searchain.files import starts_with

REPORT_FILE = "report.md"
"""The report's name in its folder."""
TITLE = "# searchain evaluation report"
"""The report's first line: a ``report.md`` that starts otherwise is not searchain's."""


def is_report(path: Path) -> bool:
    """Whether ``path`` is a report searchain wrote (and so may be written over)."""
    return starts_with(path, (TITLE.encode(),), limit=len(TITLE))


def fmt(value: float | None, percent: bool = False) -> str:
    """A figure as the report shows it: 3 decimals, a percentage, or "–" for none."""
    if value is None:
        return "–"
    return f"{100 * value:.1f}%" if percent else f"{value:.3f}" if value < 10 else f"{value:.0f}"


def section(title: str, intro: str, columns: list[str], rows: list[list[str]]) -> list[str]:
    """A report section: its heading, a sentence on what it counts, its table (none if empty)."""
    if not rows:
        return []
    return [
        "",
        f"## {title}",
        "",
        *([intro, ""] if intro else []),
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def figure_sections(
    runs: dict[Run, list[dict[str, Any]]], names: dict[Run, str], summaries: dict[Run, Any]
) -> list[str]:
    """The sections of the figures a run's summary holds; a run without them has no row."""
    lines: list[str] = []
    lines += section(
        "Replies the parsers could not read",
        "Questions with at least one reply that had no chain, no [Final Content], no final "
        "answer or no valid ReAct action (a fallback answered instead), and such replies per "
        "question.",
        ["run", "main", "questions with one", "per question", "by kind"],
        [
            [
                names[run],
                fmt(summaries[run]["main"]),
                fmt(f["rate"], percent=True),
                fmt(f["per_question"]),
                ", ".join(f"{k} {n}" for k, n in f["kinds"].items()) or "–",
            ]
            for run in runs
            if (f := summaries[run].get("format"))
        ],
    )
    lines += section(
        "Citations: does each cited passage state the step citing it?",
        "The model's own citations only. Verdict precision and recall are searchain's figures, "
        "not ALCE's. Precision: citations whose passage states their step, "
        "of those the verifier could judge; *unverifiable*: the share it could not (the lexical "
        "rule does not judge yes/no, bare numbers or an answer made of the query's own words). "
        "Recall: reasoning steps backed by a stated citation, of all steps on the answers' "
        "paths. *composed*: questions whose final content searchain wrote from the path because "
        "the model's cited nothing; *inserted*: the citations it put there, per question, in "
        "neither figure. ALCE (Gao et al., 2023): its sentence-level citation recall and "
        "precision by NLI entailment, as its compute_autoais computes them, on the model's reply "
        "as written; only with an NLI verifier. "
        "*verifier*: who gave the verdicts (lexical: the offline containment rule, "
        "docs/traceability.md).",
        [
            "run",
            "verifier",
            "main",
            "citations/question",
            "verdict precision",
            "verdict recall",
            "unverifiable",
            "composed",
            "inserted/question",
            "ALCE recall",
            "ALCE precision",
        ],
        [
            [
                names[run],
                dict(run).get("verifier", "lexical"),
                fmt(summaries[run]["main"]),
                fmt(c["per_question"]),
                fmt(c["precision"]),
                fmt(c["recall"]),
                fmt(c["unverifiable"], percent=True),
                fmt(summaries[run].get("composed"), percent=True),
                fmt(c["inserted"]),
                fmt(summaries[run].get("alce", {}).get("recall")),
                fmt(summaries[run].get("alce", {}).get("precision")),
            ]
            for run in runs
            if (c := summaries[run].get("citations"))
        ],
    )
    lines += section(
        "Verify at the hop level (gold sub-questions)",
        "",
        [
            "run",
            "corrections",
            "precision",
            "recall (of wrong hops)",
            "misleading (of right hops)",
            "completions",
        ],
        [
            [
                names[run],
                str(h["corrections"]),
                fmt(h["precision"]),
                f"{fmt(h['recall'])} ({h['wrong_hops']})",
                f"{fmt(h['misleading'])} ({h['right_hops']})",
                str(h["completions"]),
            ]
            for run in runs
            if (h := summaries[run].get("hops"))
        ],
    )
    return lines
