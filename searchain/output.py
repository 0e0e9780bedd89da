"""A run's result as plain JSON, for ``searchain ask --json`` and result files, and back."""

from __future__ import annotations

import re
from dataclasses import asdict, fields
from typing import Any

from searchain.state import Reference, TreeNode
from searchain.types import Passage

UNSTATED = "†"
"""The mark after a citation whose passage does not state the step citing it."""


def unstated_notes(result: dict[str, Any]) -> tuple[str, list[str]]:
    """The final content with each unstated citation marked ``[n]†``, and one note per mark.

    A note reads "† passage [1] does not state: Leonardo da Vinci" (the cited step's answer):
    the reader sees at the citation itself that it does not back the sentence.
    """
    content = result.get("final_content", "")
    nodes = {node.id: node for node in result.get("nodes", [])}
    notes = []
    for ref in result.get("references", []):
        if ref.support != "unstated":
            continue
        content = re.sub(rf"\[{ref.n}\](?!{UNSTATED})", f"[{ref.n}]{UNSTATED}", content)
        node = nodes.get(ref.node)
        answer = node.answer if node is not None else ""
        notes.append(f"{UNSTATED} passage [{ref.n}] does not state: {answer}")
    return content, notes


COMPOSED_NOTE = (
    "Composed by searchain from the reasoning steps (the model's final content cited nothing); "
    "the model wrote: {model}"
)
PATH_ANSWER_NOTE = "The model stated no final answer: the answer shown is the last step's."
NO_CHAIN_NOTE = (
    "{when} the model wrote no chain of sub-questions that searchain could read, so {what}. "
    "Small models often cannot follow the Chain-of-Query format: try a larger one "
    "(--llm openai:gpt-4o-mini, or a bigger GGUF with --llm gguf:PATH)."
)


def provenance_notes(result: dict[str, Any]) -> list[str]:
    """One line for each piece of the output searchain wrote rather than the model, and why.

    A chain the model never wrote (``no_chain``: said in words a person understands, with what to
    try), a composed final content (the model's reply cited nothing, so searchain wrote one
    sentence per step), and an answer taken from the last step because the model stated none.
    """
    notes = []
    if result.get("stop_reason") == "no_chain":
        first = not result.get("nodes")
        notes.append(
            NO_CHAIN_NOTE.format(
                when="Asked to plan," if first else f"In round {result.get('rounds', 0)},",
                what="nothing was retrieved or checked: the content is the model's own, unchecked"
                if first
                else "reasoning stopped with the steps before it",
            )
        )
    if result.get("content_source") == "composed":
        notes.append(COMPOSED_NOTE.format(model=repr(result.get("model_content", ""))))
    if result.get("answer_source") == "path":
        notes.append(PATH_ANSWER_NOTE)
    return notes


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


def result_from_json(values: dict[str, Any]) -> dict[str, Any]:
    """A result a server sent as JSON, its nodes and references back in their Python types.

    What :func:`unstated_notes` and the LangChain tool's text read; fields a newer server adds
    are ignored.
    """
    nodes = [
        TreeNode(
            **{
                **_known(TreeNode, node),
                "passage": Passage(**_known(Passage, node["passage"]))
                if node.get("passage")
                else None,
            }
        )
        for node in values.get("nodes", [])
    ]
    references = [Reference(**_known(Reference, ref)) for ref in values.get("references", [])]
    return {**values, "nodes": nodes, "references": references}
