"""Self-Ask (Press et al., 2022): follow-up questions, answered by retrieval or by the LLM."""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.baselines.steps import short_answer
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import as_data, feedback_template, render
from searchain.state import ReasoningState
from searchain.text import strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

FOLLOW_UP = re.compile(r"^Follow up:\s*(.+)$", re.MULTILINE)
FINAL = "So the final answer is:"
STEP_TOKENS = 128
"""One follow-up question; four times as many for a whole transcript without IR."""


def self_ask_step(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Continue the transcript by one follow-up and its intermediate answer, or finish it.

    With IR (``ircot_k`` > 0) generation stops at "Intermediate answer:"; the follow-up is
    searched (K paragraphs) and answered from them. Without IR the LLM writes the whole
    transcript, intermediate answers included, in one call. At the step limit the final
    answer is forced.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    with_ir = ctx.ircot_k > 0
    forced = state.steps >= ctx.ircot_max_steps
    transcript = "".join(state.cot) + (FINAL if forced else "")
    head = render(feedback_template("self_ask"), question=state.question)
    prompt = head + transcript  # transcript pieces are stored already delimited
    stop = ["\n\n", "\nQuestion:"]
    if with_ir and not forced:
        stop.append("Intermediate answer:")
    tokens = 32 if forced else STEP_TOKENS if with_ir else 4 * STEP_TOKENS
    reply = generate(llm, [HumanMessage(prompt)], stop=stop, max_tokens=tokens)
    written = ("" if state.cot or forced else " ") + as_data(strip_tags(reply).strip())
    update: dict[str, Any] = {"steps": state.steps + 1, "settings": thread_settings(ctx)}
    follow_ups = FOLLOW_UP.findall(written)
    if forced or FINAL in written or not (with_ir and follow_ups):
        text = strip_tags(transcript + (" " if forced else "") + written)
        stated = text.rsplit(FINAL, 1)[-1] if FINAL in text else text
        answer = completed_answer(stated, ctx.task_prompt(state.task).answer_labels)
        emit(runtime, "self_ask_answered", answer=answer)
        # Neither a follow-up (with IR) nor "So the final answer is:": a reply it cannot read.
        unread = FINAL not in text
        return {
            **update,
            "format_failures": state.format_failures + (["no_final_answer"] if unread else []),
            "answer": answer,
            "generation": text.strip(),
            "done": True,
            # Every output field, even when no follow-up was asked.
            "cot": state.cot,
            "paragraphs": state.paragraphs,
            "queries": state.queries,
        }
    question = follow_ups[-1].strip()
    found = retrieve(ctx, state.uploads, question, ctx.ircot_k, state.paragraphs)
    intermediate = short_answer(ctx, llm, question, found, asked=state.question)
    emit(runtime, "self_ask_follow_up", question=question, answer=intermediate)
    return {
        **update,
        "cot": [
            *state.cot,
            f"{written}\nIntermediate answer: <answer>{as_data(intermediate)}</answer>.\n",
        ],
        "paragraphs": [*state.paragraphs, *found],
        "queries": [*state.queries, question],
    }


def route_self_ask(state: ReasoningState) -> Literal["self_ask_step", "reply"]:
    """Ask again until the final answer is written (the step bound forces it)."""
    return "reply" if state.done else "self_ask_step"
