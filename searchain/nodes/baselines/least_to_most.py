"""Least-to-Most (Zhou et al., ICLR 2023): sub-questions first, then each answered in order."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import ANSWER_MARK, final_answer
from searchain.prompts import feedback_template, render
from searchain.state import ReasoningState
from searchain.text import normalize_answer, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

DECOMPOSE_TOKENS = 160
SOLVE_TOKENS = 96
_QUOTED = re.compile(r'"([^"\n]+\?)"')


def least_to_most(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Decompose (one call), then solve each sub-question and the question, answers carried on.

    Stage 1 asks for the sub-questions ("we need to know: "…", "…"."); stage 2 makes one call
    per sub-question (at most ``ircot_max_steps``) and one for the question, each shown the
    answers so far; the last says "The answer is …".

    A decomposition with no quoted question is counted (``no_subquestions``) and the question is
    answered at once; a sub-question that repeats the question is asked once, last.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    labels = ctx.task_prompt(state.task).answer_labels
    prompt = render(feedback_template("least_to_most_decompose"), question=state.question)
    plan = strip_tags(
        generate(llm, [HumanMessage(prompt)], stop=["\nQ:", "\n\n"], max_tokens=DECOMPOSE_TOKENS)
    )
    asked = normalize_answer(state.question)
    subquestions: list[str] = []
    for found in _QUOTED.findall(plan):
        key = normalize_answer(found)
        if key != asked and key not in map(normalize_answer, subquestions):
            subquestions.append(found.strip())
    subquestions = subquestions[: ctx.ircot_max_steps]
    failures = [] if subquestions or _QUOTED.search(plan) else ["no_subquestions"]
    solved, replies = "", []
    for subquestion in [*subquestions, state.question]:
        prompt = render(
            feedback_template("least_to_most_solve"),
            question=state.question,
            solved=solved,
            subquestion=subquestion,
        )
        reply = strip_tags(
            generate(llm, [HumanMessage(prompt)], stop=["\nQ:", "\n\n"], max_tokens=SOLVE_TOKENS)
        ).strip()
        replies.append(reply)
        solved += f"\nQ: {subquestion}\nA: {reply}\n"
    answer = final_answer(replies[-1], labels)
    if not answer or not ANSWER_MARK.search(replies[-1]):
        failures.append("no_final_answer")
    emit(runtime, "least_to_most_answered", subquestions=len(subquestions), answer=answer)
    return {
        "answer": answer,
        "generation": " ".join([plan.strip(), *replies]),
        "cot": replies,
        "queries": [],
        "paragraphs": [],
        "steps": len(replies),
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + failures,
    }
