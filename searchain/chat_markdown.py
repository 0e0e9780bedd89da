"""A run's answer as a chat reply in Markdown: what a chat front-end shows as the AI message.

SearChain's reply (:func:`answer_markdown`) gives the answer, the final content with its ``[n]``
citations, the steps and where each answer came from, the references with their verdicts (each
passage excerpted from the sentence that holds its step's answer), and a note for whatever
searchain wrote rather than the model; IRCoT's and the baselines' (:func:`reasoning_markdown`)
the answer, the reasoning and the paragraphs retrieved. The model's and the passages' text is
escaped (:func:`md`): a reply formats only what searchain formats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from searchain.provenance import cited_at, provenance_notes, unstated_notes
from searchain.state import Reference, reasoning_path
from searchain.text import normalize_answer, split_sentences
from searchain.tools.retrieval.embedded.analysis.tokenizer import english_stopwords

EXCERPT = 240
"""Characters of a passage a reference shows (the rest is in ``searchain show`` and the page)."""


def quoted(text: str, limit: int = EXCERPT) -> str:
    """``text`` on one line, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


VERDICTS = {
    "stated": "states the step's answer",
    "unstated": "does not state the step's answer",
    "unverifiable": "cannot be checked against the step's answer",
}
SOURCES = {
    "llm": "the model's answer",
    "corrected": "corrected from the passage",
    "completed": "completed from the passage",
    "edited": "edited by a person",
}


def answer_markdown(result: dict[str, Any]) -> str:
    """A SearChain answer as a chat reply: answer, cited content, steps, references, notes."""
    content, unstated = unstated_notes(result)
    parts = []
    if result.get("answer"):
        parts.append(f"**Answer:** {md(result['answer'])}")
    if content:
        parts.append(md(content))
    path = reasoning_path(result.get("nodes", []))
    if path:
        steps = [f"{n.step}. {md(n.query)} → **{md(n.answer)}** ({step_source(n)})" for n in path]
        parts.append("**Steps**\n\n" + "\n".join(steps))
    references = result.get("references", [])
    nodes = {n.id: n for n in result.get("nodes", [])}
    if references:
        lines = [
            f"[{ref.n}] {cited_passage(ref, nodes.get(ref.node))} — "
            f"{VERDICTS.get(ref.support or '', 'not checked')}"
            + (" (cited by searchain)" if ref.inserted else "")
            for ref in references
        ]
        parts.append("**References**\n\n" + "\n\n".join(lines))
    notes = [*unstated, *provenance_notes(result)]
    if not result.get("answer") and not content:
        notes.append("No answer: the model wrote nothing searchain could read.")
    if notes:
        parts.append("\n\n".join(f"> {note}" for note in notes))
    return "\n\n".join(parts)


KEPT = {
    "stated": "its passage states it",
    "unstated": "its passage does not state it, and the reader was not confident enough to "
    "correct it",
    "unverifiable": "its passage cannot confirm or refute it",
}
"""Why the model's own answer stands, by the verdict on the step's passage (never a claim the
verdict below the step contradicts)."""


def step_source(node: Any) -> str:
    """Where a step's answer came from, in words (a rejected correction named, reuse said).

    A step the model answered says what its passage's verdict is: "no passage said otherwise"
    above "[1] … does not state the step's answer" read as support the passage never gave.
    """
    if node.rejected:
        said = f"the model's answer, kept by a person over the passage's **{md(node.rejected)}**"
    else:
        said = SOURCES.get(node.source or "", str(node.source))
        if node.source == "llm":
            said += ": " + KEPT.get(node.support or "", "not checked against a passage")
    return f"reused from an earlier question, not searched again: {said}" if node.reused else said


MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")

CITATION = re.compile(r"\\\[(\d+)\\\](?!:)")
"""An escaped ``[n]``, which stays a plain citation (one before a colon stays escaped: it would
be a link definition)."""


def md(text: str) -> str:
    """The model's (or a passage's) text as literal Markdown: every markup character escaped.

    A model's ``[Final Content]: ...`` is otherwise a link reference definition that the chat
    hides, and its ``*`` or ``<b>`` would format the reply. Citations ``[n]`` are kept as typed.
    """
    return CITATION.sub(r"[\1]", MARKDOWN_SPECIAL.sub(r"\\\1", text))


def excerpt(text: str, answer: str, query: str = "", limit: int = EXCERPT) -> str:
    """The passage from the sentence holding ``answer``, cut at ``limit``.

    Where no sentence holds it (a passage that does not state the step), the sentence that best
    matches the step's ``query`` (:func:`closest_sentence`): the passage's opening 250
    characters were often cut before the sentence a reader needs to judge the verdict.
    """
    sentences = split_sentences(" ".join(text.split()))
    needle = answer.strip(" .").lower()
    start = next((i for i, s in enumerate(sentences) if needle and needle in s.lower()), None)
    if start is None:
        start = closest_sentence(sentences, query)
    return ("…" if start else "") + quoted(" ".join(sentences[start:]) or text, limit)


def closest_sentence(sentences: Sequence[str], query: str) -> int:
    """The sentence sharing the query's rarest content words (rare within the passage), first.

    A word of every sentence (the passage's subject) tells them apart no more than a stop word.
    """
    stop = english_stopwords()
    words = [set(normalize_answer(s).split()) - stop for s in sentences]
    asked = set(normalize_answer(query).split()) - stop
    weight = {
        w: math.log(1 + len(words) / sum(w in ws for ws in words)) for w in set().union(*words)
    }
    scores = [sum(weight[w] for w in asked & ws) for ws in words]
    return max(range(len(sentences)), key=lambda i: (scores[i], -i)) if sentences else 0


def cited_passage(ref: Reference, node: Any) -> str:
    """A reference's passage in a reply: its title and its step's excerpt, or a pointer.

    Where an earlier reference quotes the same passage, it is named instead of quoted again.
    """
    if ref.same_as is not None:
        return f"the passage of [{ref.same_as}]"
    excerpted = md(excerpt(ref.text, *step_of(node)))
    return f"*{md(ref.title)}*{cited_at(ref.source)}: “{excerpted}”"


def step_of(node: Any) -> tuple[str, str]:
    """A cited step's ``(answer, query)``, what :func:`excerpt` looks for in its passage."""
    return (node.answer, node.query) if node is not None else ("", "")


def reasoning_markdown(result: dict[str, Any]) -> str:
    """An IRCoT or baseline answer as a chat reply: answer, reasoning, paragraphs retrieved."""
    parts = [f"**Answer:** {result['answer']}" if result.get("answer") else ""]
    if not result.get("answer"):
        parts = ["> The model stated no answer searchain could read (a larger model may)."]
    cot = [sentence for sentence in result.get("cot", []) if sentence.strip()]
    if cot:
        parts.append("**Reasoning**\n\n" + " ".join(cot))
    paragraphs = result.get("paragraphs", [])
    if paragraphs:
        lines = [
            f"[{i}] *{p.title}*{cited_at(p.source)}: “{quoted(p.text)}”"
            for i, p in enumerate(paragraphs, 1)
        ]
        parts.append("**Paragraphs retrieved**\n\n" + "\n\n".join(lines))
    return "\n\n".join(parts)
