"""DSP (Khattab et al., 2022): Demonstrate-Search-Predict's multi-hop program.

Two hops: a search query written from the question (DSP's rewrite template), then one written
from the question and the passages found (its hop template); ``ircot_k`` passages each. Then
Predict: a chain of thought over all the passages ending in "Answer:" (its QA-with-CoT
template). The demonstrations are question/answer pairs of the data set's IRCoT demonstrations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import feedback_template, render
from searchain.prompts.ircot import cap_words, load_demos
from searchain.state import ReasoningState
from searchain.text import strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm
from searchain.types import Passage

HOPS = 2
"""The multi-hop program's hops (DSP's ``max_hops``)."""
DEMOS = 7
"""Demonstrations sampled into each prompt (DSP's example program uses 7)."""
QUERY_TOKENS = 96
ANSWER_TOKENS = 160
_QUERY = re.compile(r"Search Query:\s*(?P<query>[^\n]+)", re.IGNORECASE)
_ANSWER = re.compile(r"Answer:\s*(?P<answer>[^\n]+)", re.IGNORECASE)


def dsp(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Search twice, each query written by the LLM, then predict the answer from the passages.

    A reply without "Search Query:" searches with the question (counted as ``no_query``); an
    answer without "Answer:" falls back to the reply's stated answer (``no_final_answer``).
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    demos = "".join(
        f"Question: {d.question}\nAnswer: {d.answer}\n\n---\n\n"
        for d in load_demos(ctx.ircot_demos, leave_out=state.question)[:DEMOS]
    )
    found: list[Passage] = []
    queries, written, failures = [], [], []
    for hop in range(HOPS):
        template = "dsp_query" if hop == 0 else "dsp_hop"
        prompt = render(
            feedback_template(template),
            demos=demos,
            question=state.question,
            context=_context(found),
        )
        reply = strip_tags(
            generate(llm, [HumanMessage(prompt)], stop=["\n\n", "\n---"], max_tokens=QUERY_TOKENS)
        )
        match = _QUERY.search(reply)
        if match is None:
            failures.append("no_query")
        query = match.group("query").strip() if match else state.question
        written.append(reply.strip())
        queries.append(query)
        found += retrieve(ctx, query, ctx.ircot_k, have=found)
    prompt = render(
        feedback_template("dsp_answer"),
        demos=demos,
        question=state.question,
        context=_context(found),
    )
    reply = strip_tags(
        generate(llm, [HumanMessage(prompt)], stop=["\n\n", "\n---"], max_tokens=ANSWER_TOKENS)
    )
    labels = ctx.task_prompt(state.task).answer_labels
    match = _ANSWER.search(reply)
    if match is None:
        failures.append("no_final_answer")
    answer = completed_answer(match.group("answer") if match else reply, labels)
    emit(runtime, "dsp_answered", answer=answer, passages=len(found))
    return {
        "answer": answer,
        "generation": " ".join([*written, reply.strip()]),
        "cot": [*written, reply.strip()],
        "paragraphs": found,
        "queries": queries,
        "steps": HOPS + 1,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + failures,
    }


def _context(passages: Sequence[Passage]) -> str:
    """Passages as DSP numbers them: ``[1] «title | text»``."""
    return "\n".join(
        f"[{i}] «{p.title} | {cap_words(p.text)}»" for i, p in enumerate(passages, start=1)
    )
