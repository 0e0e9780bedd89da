"""A run's result as plain JSON, for ``searchain ask --json`` and result files, and back."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, TypeVar

from searchain.state import Reference, TreeNode
from searchain.types import Passage, Source

T = TypeVar("T")


def result_to_json(result: dict[str, Any]) -> dict[str, Any]:
    """The graph's output as JSON-ready data: answer, content, references, tree, rounds."""
    nodes = result.get("nodes", [])
    return {
        "question": result.get("question", ""),
        "answer": result.get("answer", ""),
        "answer_source": result.get("answer_source", ""),
        "final_content": result.get("final_content", ""),
        "content_source": result.get("content_source", ""),
        "model_content": result.get("model_content", ""),
        "trace_reply": result.get("trace_reply", ""),
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
                "passage": asdict(node.passage) if node.passage else None,
                "theta": node.theta,
                "unsolved": node.unsolved,
                "reused": node.reused,
                "rejected": node.rejected,
                "support": node.support,
                "parent": node.parent,
                "branch": node.branch,
            }
            for node in nodes
        ],
        "rounds": result.get("rounds", 0),
        "stop_reason": result.get("stop_reason", ""),
        "format_failures": list(result.get("format_failures", [])),
        "tree": [asdict(branch) for branch in result.get("branches", [])],
    }


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _with_source(cls: type[T], data: dict[str, Any]) -> T:
    """A passage or reference from JSON, its ``source`` (if any) a :class:`Source` again."""
    known = _known(cls, data)
    if "source" in known:
        known["source"] = Source.of(known["source"])
    return cls(**known)


def result_from_json(values: dict[str, Any]) -> dict[str, Any]:
    """A result a server sent as JSON, its nodes and references back in their Python types.

    What :func:`unstated_notes` and the LangChain tool's text read; fields a newer server adds
    are ignored.
    """
    nodes = [
        TreeNode(
            **{
                **_known(TreeNode, node),
                "passage": _with_source(Passage, node["passage"]) if node.get("passage") else None,
            }
        )
        for node in values.get("nodes", [])
    ]
    references = [_with_source(Reference, ref) for ref in values.get("references", [])]
    return {**values, "nodes": nodes, "references": references}
