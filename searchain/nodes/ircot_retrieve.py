"""IRCoT retrieve: K paragraphs for the question, then for each new reasoning sentence."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.ircot_state import IRCoTState
from searchain.tools.resolve import resolve_retriever


def ircot_retrieve(state: IRCoTState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Add up to K new paragraphs (by id) to the collection, never beyond its cap."""
    ctx = context_of(runtime)
    if not state.cot and not state.question.strip():
        raise ValueError("the question is empty: pass a non-blank question")
    query = state.cot[-1] if state.cot else state.question
    retriever = resolve_retriever(
        ctx.retriever, ctx.index, es_url=ctx.es_url, es_index=ctx.es_index
    )
    seen = {p.id for p in state.paragraphs}
    collected = list(state.paragraphs)
    for passage in retriever.search(query, k=ctx.ircot_k):
        if len(collected) >= ctx.ircot_max_paragraphs:
            break
        if passage.id not in seen:
            seen.add(passage.id)
            collected.append(passage)
    emit(runtime, "ircot_retrieved", query=query, paragraphs=len(collected))
    return {"paragraphs": collected, "queries": [*state.queries, query]}
