"""Resolve the ``[n]`` markers of a final content to the passages of the reasoning path."""

from __future__ import annotations

import re
from collections.abc import Sequence

from searchain.state import Reference, TreeNode
from searchain.text import contains_answer, split_sentences

_CITATION = re.compile(r"\s?\[(\d+(?:\s*[,;]\s*\d+)*)\]")
MAX_DIGITS = 9
"""A number with more digits cites no step of any path: it is removed and not listed (as an int it
could exceed what a checkpoint stores, or Python's int-conversion limit)."""
_ADJACENT = re.compile(r"(?<=\[\d)\]\s+\[(?=\d)|(?<=\[\d\d)\]\s+\[(?=\d)")


def resolve_citations(
    content: str, path: Sequence[TreeNode]
) -> tuple[str, list[Reference], list[int]]:
    """Return ``(content, references, unresolved)`` for a final content citing ``path``.

    A marker resolves when its number is a step of the path that has a passage. Markers that
    resolve nowhere are removed from the text and returned in ``unresolved``, so a reader never
    sees a citation that leads nowhere. ``[1, 2]`` cites two steps.
    """
    by_step = {node.step: node for node in path if node.passage is not None}
    cited: dict[int, Reference] = {}
    unresolved: list[int] = []

    def replace(match: re.Match[str]) -> str:
        keep = []
        for digits in re.split(r"\s*[,;]\s*", match.group(1)):
            if len(digits.lstrip("0")) > MAX_DIGITS:
                continue
            number = int(digits)
            node = by_step.get(number)
            if node is None or node.passage is None:
                if number not in unresolved:
                    unresolved.append(number)
                continue
            keep.append(number)
            cited.setdefault(
                number,
                Reference(
                    number,
                    node.id,
                    node.passage.id,
                    node.passage.title,
                    node.passage.text,
                    node.support,
                    source=node.passage.source,
                ),
            )
        return "".join(f" [{n}]" for n in keep)

    text = _ADJACENT.sub("][", _CITATION.sub(replace, content)).strip()
    return text, shared_passages([cited[n] for n in sorted(cited)]), unresolved


def shared_passages(references: list[Reference]) -> list[Reference]:
    """Each reference to a passage an earlier one already cites marked ``same_as`` that one.

    Steps keep their own numbers (``[n]`` is step n in the tree) and verdicts (one passage may
    state one step and not another); only the passage is listed once.
    """
    first: dict[str, int] = {}
    for ref in references:
        ref.same_as = first.get(ref.id)
        first.setdefault(ref.id, ref.n)
    return references


def compose_content(path: Sequence[TreeNode], answer: str) -> str:
    """A final content written from the path itself, one cited sentence per step.

    Used when the LLM's own final content cites nothing, so the answer still shows where each
    step's knowledge came from.
    """
    sentences = []
    for node in path:
        citation = f" [{node.step}]" if node.passage is not None else ""
        sentences.append(f"{node.query} {node.answer}".strip().rstrip(".") + citation + ".")
    if answer:
        sentences.append(f"So the final answer is {answer}.")
    return " ".join(sentences)


def cite_model_content(content: str, path: Sequence[TreeNode]) -> str:
    """The model's own final content, each sentence that states a step's answer given its ``[n]``.

    A model that cited nothing often still wrote the answer ("Lorenzo Monaco was influenced by
    Italian painter and architect Giotto"); its sentence is kept, cited where a step with a
    passage has its answer in it, and searchain composes a content only where no sentence
    states any step's answer (``""`` is returned then). The verdict on each citation is made
    as on any other.
    """
    sentences = split_sentences(" ".join(content.split()))
    cited_any = False
    out = []
    for sentence in sentences:
        steps = [
            node.step
            for node in path
            if node.passage is not None and node.answer and contains_answer(sentence, node.answer)
        ]
        if steps:
            cited_any = True
            body = sentence.rstrip()
            end = body[-1] if body and body[-1] in ".!?" else ""
            body = body[: len(body) - len(end)] if end else body
            sentence = body + "".join(f" [{step}]" for step in steps) + end
        out.append(sentence)
    return " ".join(out) if cited_any else ""
