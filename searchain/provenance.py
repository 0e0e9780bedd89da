"""What a reader is told of an answer: unstated citations, what searchain wrote, which file.

Every surface that shows an answer (the CLI, the page, the chat reply, the LangChain tool's
text, MCP) says the same thing in the same words, from here.
"""

from __future__ import annotations

import re
from typing import Any

from searchain.types import Source

UNSTATED = "†"
"""The mark after a citation whose passage does not state the step citing it."""


def cited_at(source: Source | None) -> str:
    """`` (report.pdf, p. 12)`` after a passage's title; nothing for a benchmark corpus's."""
    return f" ({source.cite()})" if source is not None else ""


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
PATH_ANSWER_NOTE = (
    "The model's reply had no final-answer line: the answer shown is the last step's."
)
NO_CHAIN_NOTE = (
    "{when} the model wrote no chain of sub-questions that searchain could read, so {what}. "
    "Small models often cannot follow the Chain-of-Query format: try a larger one "
    "(the LLM openai:gpt-4o-mini, or a bigger GGUF as gguf:PATH)."
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


def rounds_without_new_queries(
    chains: list[tuple[int, list[int]]], node_rounds: dict[int, int]
) -> list[str]:
    """One line per round whose chain asked no new sub-question, so it shows in no branch.

    ``chains`` are each round's ``(branch id, node ids in its chain)``, ``node_rounds`` each
    node's branch id. Such a round re-planned all the same: "2 rounds" over a tree of one read
    as a round that never happened.
    """
    lines = []
    for branch, chain in chains:
        if branch == 0 or any(node_rounds.get(node) == branch for node in chain):
            continue
        asked = " → ".join(f"node {node}" for node in chain) or "no sub-question"
        lines.append(f"Round {branch + 1} re-planned with no new sub-question (its chain: {asked})")
    return lines
