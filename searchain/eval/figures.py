"""The figures a report computes from result lines: hop-level Verify, citations, formats."""

from __future__ import annotations

from collections import Counter
from typing import Any


def main_metric(result: dict[str, Any]) -> float:
    """Cover-EM for questions, accuracy for yes/no and fact checking."""
    metrics = result["metrics"]
    return metrics["accuracy"] if "accuracy" in metrics else metrics["cover_em"]


def hop_figures(hops: list[dict[str, Any]]) -> dict[str, Any]:
    """Correction precision and recall, and the misleading rate, over gold-matched hops.

    Precision: corrections that turned a wrong LLM answer into the gold one, of all corrections.
    Recall: wrong LLM answers corrected into the gold one, of the wrong answers Verify saw.
    Misleading: right LLM answers a correction turned wrong, of the right answers Verify saw.
    """
    verified = [h for h in hops if h["source"] != "completed"]
    corrected = [h for h in verified if h["source"] == "corrected"]
    wrong = [h for h in verified if not h["llm_right"]]
    right = [h for h in verified if h["llm_right"]]
    fixed = [h for h in corrected if h["final_right"] and not h["llm_right"]]
    misled = [h for h in corrected if h["llm_right"] and not h["final_right"]]
    return {
        "corrections": len(corrected),
        "precision": len(fixed) / len(corrected) if corrected else None,
        "recall": len(fixed) / len(wrong) if wrong else None,
        "wrong_hops": len(wrong),
        "misleading": len(misled) / len(right) if right else None,
        "right_hops": len(right),
        "completions": len(hops) - len(verified),
    }


def format_figures(failures: list[list[str]]) -> dict[str, Any]:
    """How often a run's replies could not be read.

    The share of questions with at least one such reply, such replies per question, and their
    count by kind.
    """
    kinds = Counter(kind for question in failures for kind in question)
    return {
        "rate": sum(1 for question in failures if question) / len(failures),
        "per_question": sum(kinds.values()) / len(failures),
        "kinds": dict(sorted(kinds.items())),
    }


def citation_figures(counts: list[dict[str, int]]) -> dict[str, Any]:
    """Citation precision and recall over a run's questions, pooled: the model's citations only.

    Precision: the model's citations whose passage states the step citing it, of those the
    verifier could judge (``unverifiable`` ones are counted apart). Recall: steps of the answers'
    reasoning paths backed by a stated citation of the model's, of all their steps. Citations
    searchain inserted into a composed content are counted apart and in neither figure.
    """
    cited = sum(c["cited"] for c in counts)
    stated = sum(c["stated"] for c in counts)
    unverifiable = sum(c.get("unverifiable", 0) for c in counts)
    steps = sum(c["steps"] for c in counts)
    judged = cited - unverifiable
    return {
        "per_question": cited / len(counts),
        "precision": stated / judged if judged else None,
        "recall": stated / steps if steps else None,
        "unverifiable": unverifiable / cited if cited else None,
        "inserted": sum(c.get("inserted", 0) for c in counts) / len(counts),
    }


def alce_figures(scores: list[dict[str, float]]) -> dict[str, float]:
    """ALCE's citation recall and precision: the means of the questions' own figures."""
    return {
        "recall": sum(s["recall"] for s in scores) / len(scores),
        "precision": sum(s["precision"] for s in scores) / len(scores),
    }
