"""The person's conversation (the ``messages`` chat front-ends read) and the LLM's own, kept apart.

A chat front-end (Agent Chat UI, LangGraph Studio's chat view, anything on ``useStream``) shows a
thread's ``messages``: here each question is a human message and each answer one AI message in
Markdown — the answer, the final content with its ``[n]`` citations, the references with their
verdicts, and a note for whatever searchain wrote rather than the model. While a run goes on,
that AI message shows its progress, and it is replaced by the answer at the end. The LLM's
conversation (few-shot prompt, chains, feedback) lives in ``llm_messages``, as plain
``{"by", "text"}`` turns that neither LangGraph nor a front-end takes for messages.

Threads checkpointed by a pre-release before this split kept the LLM's conversation in
``messages``: a run on one is refused where it enters the graph, before any node writes
(:func:`refuse_legacy`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any
from uuid import UUID, uuid4

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.utils.utils import LC_ID_PREFIX

from searchain.provenance import cited_at, provenance_notes, unstated_notes
from searchain.state import Reference, Turn
from searchain.text import clean_text, normalize_answer, split_sentences
from searchain.tools.retrieval.tokenizer import english_stopwords

EXCERPT = 240
"""Characters of a passage a reference shows (the rest is in ``searchain show`` and the page)."""


def new_reply_id() -> str:
    """An id for the AI message that will answer a question.

    Shaped as LangChain names a streamed reply (``lc_run--<run id>``), so the answer's tokens,
    streamed by a model call run under :func:`run_id_of` this id, land in the same message.
    """
    return f"{LC_ID_PREFIX}-{uuid4()}"


def run_id_of(reply_id: str) -> UUID:
    """The model-call run id whose streamed tokens carry ``reply_id`` (see :func:`new_reply_id`)."""
    return UUID(reply_id.removeprefix(f"{LC_ID_PREFIX}-"))


def text_of(message: BaseMessage) -> str:
    """A message's text, whether its content is a string or content blocks."""
    return clean_text(message.text).strip()


def prompt_turn(text: str) -> dict[str, str]:
    """A turn of the LLM conversation that searchain wrote (a prompt, feedback)."""
    return {"by": "searchain", "text": text}


def model_turn(text: str) -> dict[str, str]:
    """A turn of the LLM conversation that the model wrote (a chain)."""
    return {"by": "llm", "text": text}


def as_llm_messages(turns: Sequence[dict[str, str]]) -> list[BaseMessage]:
    """The LLM conversation as the chat messages a model takes."""
    return [AIMessage(t["text"]) if t["by"] == "llm" else HumanMessage(t["text"]) for t in turns]


def refuse_legacy(state: Any) -> None:
    """Refuse a thread checkpointed by a pre-release before ``messages`` was the person's.

    Such a SearChain state asked a question (``question_asked``) and never set
    ``messages_version``: its ``messages`` hold the LLM's conversation, which this release would
    misread. The first public release is the floor; the nodes a run enters by (receive, edit, a
    resumed verify) call this before they write anything (LangGraph has checkpointed the run's
    input by then; the thread's earlier checkpoints are kept as they were).
    """
    if getattr(state, "messages_version", 1) == 0 and state.question_asked:
        raise ValueError(
            "this thread was checkpointed by a pre-release of searchain, whose messages held the "
            "model's conversation; this release does not run it: start a new thread"
        )


def asked_message(state: Any) -> HumanMessage | None:
    """The human message that asks this run's question, when the run was given ``messages``.

    It is the last message, and not the one an earlier run took (``asked_id``).
    """
    if not state.messages or not isinstance(state.messages[-1], HumanMessage):
        return None
    last = state.messages[-1]
    return None if last.id == state.asked_id else last


def earlier_turns(messages: Sequence[BaseMessage]) -> list[Turn]:
    """The question/answer pairs of a conversation a caller sent (a stateless chat's history)."""
    turns, question = [], ""
    for message in messages:
        if isinstance(message, HumanMessage):
            question = text_of(message)
        elif isinstance(message, AIMessage) and question and text_of(message):
            turns.append(Turn(question, text_of(message), []))
            question = ""
    return turns


def progress(state: Any, line: str) -> dict[str, Any]:
    """The writes that add ``line`` to the current question's progress, shown in its reply."""
    if not state.reply_id:
        return {}
    lines = [*state.progress, line]
    content = "_Working on it…_\n\n" + "\n".join(f"- {item}" for item in lines)
    return {"progress": lines, "messages": [AIMessage(content, id=state.reply_id)]}


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
    path = sorted(
        (n for n in result.get("nodes", []) if n.step is not None), key=lambda n: n.step or 0
    )
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
