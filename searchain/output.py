"""A run's result as plain JSON, for ``searchain ask --json`` and result files."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


def result_to_json(result: dict[str, Any]) -> dict[str, Any]:
    """The graph's output as JSON-ready data: answer, content, references, tree, rounds."""
    nodes = result.get("nodes", [])
    return {
        "question": result.get("question", ""),
        "answer": result.get("answer", ""),
        "final_content": result.get("final_content", ""),
        "references": [asdict(ref) for ref in result.get("references", [])],
        "unresolved_citations": list(result.get("unresolved_citations", [])),
        "nodes": [
            {
                "id": node.id,
                "step": node.step,
                "query": node.query,
                "llm_answer": node.llm_answer,
                "answer": node.answer,
                "source": node.source,
                "reader_answer": node.reader_answer,
                "confidence": node.confidence,
                "calibrated": node.calibrated,
                "passage_id": node.passage.id if node.passage else None,
                "unsolved": node.unsolved,
                "reused": node.reused,
                "rejected": node.rejected,
                "parent": node.parent,
                "branch": node.branch,
            }
            for node in nodes
        ],
        "rounds": result.get("rounds", 0),
        "stop_reason": result.get("stop_reason", ""),
        "tree": [asdict(branch) for branch in result.get("branches", [])],
    }
