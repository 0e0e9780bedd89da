"""Plan-and-Solve (Wang et al., ACL 2023): plan, carry the plan out, then extract the answer."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import feedback_template, render
from searchain.prompts.ircot import reference_block
from searchain.state import ReasoningState
from searchain.text import strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

REASONING_TOKENS = 256
ANSWER_TOKENS = 32


def plan_and_solve(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The paper's two calls: the PS trigger's reasoning, then "Therefore, the answer is".

    With IR (``ircot_k`` > 0) the ``oner_k`` paragraphs retrieved for the question precede it,
    as one-step retrieval does; without IR the prompt is the paper's zero-shot one.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    found = retrieve(ctx, state.uploads, state.question, ctx.oner_k) if ctx.ircot_k else []
    shown = reference_block([(p.title, p.text) for p in found])
    prompt = shown + render(feedback_template("plan_and_solve"), question=state.question)
    reasoning = strip_tags(
        generate(llm, [HumanMessage(prompt)], stop=["\nQ:", "\n\n\n"], max_tokens=REASONING_TOKENS)
    )
    extract = shown + render(
        feedback_template("plan_and_solve_answer"), question=state.question, reasoning=reasoning
    )
    reply = generate(llm, [HumanMessage(extract)], stop=["\n"], max_tokens=ANSWER_TOKENS)
    answer = completed_answer(reply, ctx.task_prompt(state.task).answer_labels)
    emit(runtime, "plan_and_solve_answered", answer=answer)
    return {
        "answer": answer,
        "generation": f"{reasoning} Therefore, the answer is {reply.strip()}",
        "cot": [reasoning],
        "paragraphs": found,
        "queries": [state.question] if ctx.ircot_k else [],
        "steps": 1,
        "settings": thread_settings(ctx),
    }
