"""IRCoT retrieve: K paragraphs for the question, then for each new reasoning sentence."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.conversation import progress
from searchain.events import emit
from searchain.nodes.shared import retrieve
from searchain.state import ReasoningState


def ircot_retrieve(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Add up to K new paragraphs to the collection, never beyond its cap.

    The query is the question, then the last reasoning sentence. K is ``ircot_k``, or ``oner_k``
    for OneR (no reasoning steps). A paragraph already collected, by id or as a near-duplicate
    (same title, one text inside the other), is not added again.
    """
    ctx = context_of(runtime, state.settings)
    query = state.cot[-1] if state.cot else state.question
    k = ctx.ircot_k if ctx.ircot_max_steps else ctx.oner_k
    found = retrieve(ctx, state.uploads, query, k, state.paragraphs)
    collected = [*state.paragraphs, *found][: ctx.ircot_max_paragraphs]
    emit(runtime, "ircot_retrieved", query=query, paragraphs=len(collected))
    titles = ", ".join(f"*{p.title}*" for p in collected[len(state.paragraphs) :])
    return {
        "paragraphs": collected,
        "queries": [*state.queries, query],
        "settings": thread_settings(ctx),
        **progress(state, f"Searched “{query}”: {titles or 'nothing new'}"),
    }


def route_start(
    state: ReasoningState, runtime: Runtime[Context]
) -> Literal["ircot_retrieve", "ircot_answer"]:
    """Retrieve first, unless K is 0 (no retrieval: the Direct and CoT baselines).

    Blank input is refused here, before any model or index is touched.
    """
    if not state.question.strip():
        raise ValueError("the question is empty: pass a non-blank question")
    return "ircot_retrieve" if context_of(runtime, state.settings).ircot_k else "ircot_answer"


def route_retrieve(
    state: ReasoningState, runtime: Runtime[Context]
) -> Literal["ircot_reason", "ircot_answer"]:
    """Reason on the new paragraphs, unless the step budget is spent (0 steps: OneR)."""
    return (
        "ircot_reason"
        if state.steps < context_of(runtime, state.settings).ircot_max_steps
        else "ircot_answer"
    )
