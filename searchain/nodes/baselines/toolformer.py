"""ToolFormer (Schick et al., 2023) in context: the answer, with ``[WikiSearch("term")]`` calls.

The LLM completes "Question: … Answer:" and calls the search where it wants to look up
something. SearChain ran ToolFormer this way (its prompt on a chat model, no fine-tuning).
Generation stops at a call's closing ``)]``; the code searches the term (the same retriever as
every method), inserts Toolformer's ``→ result`` inside a ``<reference>`` block, and generation
goes on from there.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import as_data, feedback_template, render
from searchain.state import ReasoningState
from searchain.text import split_sentences, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

CALL = re.compile(r'\[\s*WikiSearch\s*\(\s*"?(?P<term>[^"\n]*?)"?\s*\)?\s*$', re.IGNORECASE)
"""A call at the end of a reply (generation stopped at its ``)]``)."""
ANY_CALL = re.compile(r"\[\s*WikiSearch[^\]]*\]?", re.IGNORECASE)
"""A call anywhere in the model's words (dropped from the answer it completes)."""
RESULT = re.compile(r" → <reference>.*?</reference>", re.S)
STEP_TOKENS = 96
SHOWN_SENTENCES = 2
"""Sentences of the top paragraph returned for a search (Toolformer shows a short snippet)."""


def toolformer_step(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Generate until a search call or the answer's end; run the call, or finish.

    After ``ircot_max_steps`` calls the model may not call again: generation runs to the end of
    the line and any call it still writes is dropped from the answer.
    """
    ctx = context_of(runtime, state.settings)
    n = state.steps + 1
    may_call = state.steps < ctx.ircot_max_steps
    prompt = render(feedback_template("toolformer"), question=state.question) + "".join(state.cot)
    stop = ["\n", ")]"] if may_call else ["\n"]
    reply = generate(
        resolve_llm(ctx.llm), [HumanMessage(prompt)], stop=stop, max_tokens=STEP_TOKENS
    )
    reply = as_data(strip_tags(reply))
    call = CALL.search(reply) if may_call else None
    update: dict[str, Any] = {"steps": n, "settings": thread_settings(ctx)}
    if call and call.group("term").strip():
        term = call.group("term").strip()
        passages = retrieve(ctx, state.uploads, term, 1)
        found = (
            " ".join(split_sentences(passages[0].text)[:SHOWN_SENTENCES])
            if passages
            else "nothing found"
        )
        result = f"<reference>{as_data(found)}</reference>"
        piece = f'{reply[: call.start()]}[WikiSearch("{term}") → {result}]'
        emit(runtime, "toolformer_searched", step=n, term=term)
        return {
            **update,
            "cot": [*state.cot, piece],
            "paragraphs": [*state.paragraphs, *passages],
            "queries": [*state.queries, term],
        }
    failures = ["invalid_action"] if call else []  # a call with no term
    written = own_words([*state.cot, reply])
    completion = " ".join(ANY_CALL.sub("", written).split())
    labels = ctx.task_prompt(state.task).answer_labels
    answer = completed_answer(completion, labels)
    emit(runtime, "toolformer_finished", answer=answer)
    return {
        **update,
        "answer": answer,
        "generation": written,
        "done": True,
        "cot": state.cot,
        "paragraphs": state.paragraphs,
        "queries": state.queries,
        "format_failures": state.format_failures
        + failures
        + ([] if answer else ["no_final_answer"]),
    }


def own_words(pieces: list[str]) -> str:
    """What the model wrote: the transcript without the search results the code inserted."""
    return " ".join(RESULT.sub("", "".join(pieces)).split())


def route_toolformer(state: ReasoningState) -> Literal["toolformer_step", "reply"]:
    """Generate again after a search; stop once the answer is written."""
    return "reply" if state.done else "toolformer_step"
