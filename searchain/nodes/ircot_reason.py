"""IRCoT reason: the LLM writes the next sentence of the chain of thought."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.ircot_state import IRCoTState
from searchain.prompts import feedback_template, render
from searchain.tools.base import Passage
from searchain.tools.llm import generate, resolve_llm

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
# Only the first sentence is kept, so generation stops where one ends.
SENTENCE_STOP = [". ", ".\n", "? ", "! "]
MAX_TOKENS = 96
"""One sentence of reasoning."""
ANSWER_MARK = re.compile(r"answer is", re.IGNORECASE)


def format_paragraphs(paragraphs: Sequence[Passage]) -> str:
    """Paragraphs as the prompts show them (the template puts them in a <reference> block)."""
    return "\n\n".join(f"[{p.title}] {p.text}" for p in paragraphs) or "(none)"


def ircot_reason(state: IRCoTState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Append one sentence: the first sentence of the LLM's reply."""
    ctx = context_of(runtime, state.settings)
    prompt = render(
        feedback_template("ircot_reason"),
        paragraphs=format_paragraphs(state.paragraphs),
        question=state.question,
        cot=" ".join(state.cot) or "(none yet)",
    )
    llm = resolve_llm(ctx.llm)
    reply = generate(llm, [HumanMessage(prompt)], stop=SENTENCE_STOP, max_tokens=MAX_TOKENS)
    reply = reply.strip()
    sentence = _SENTENCE_END.split(reply, maxsplit=1)[0].strip() if reply else ""
    emit(runtime, "ircot_reasoned", step=state.steps + 1, sentence=sentence)
    return {"cot": [*state.cot, sentence], "steps": state.steps + 1}


def route_reason(
    state: IRCoTState, runtime: Runtime[Context]
) -> Literal["ircot_retrieve", "ircot_answer"]:
    """Stop reasoning on "answer is", the step limit, or a sentence that brings nothing new.

    An empty sentence, or one already in the chain of thought (small models loop), would only
    retrieve the same paragraphs again; otherwise the new sentence is the next query.
    """
    last = state.cot[-1] if state.cot else ""
    done = (
        not last
        or last in state.cot[:-1]
        or ANSWER_MARK.search(last)
        or state.steps >= context_of(runtime, state.settings).ircot_max_steps
    )
    return "ircot_answer" if done else "ircot_retrieve"
