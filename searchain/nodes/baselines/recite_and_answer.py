"""Recite-and-answer (Sun et al., ICLR 2023): recite a passage from memory, answer from it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.baselines.steps import majority
from searchain.nodes.shared import completed_answer
from searchain.prompts import feedback_template, render
from searchain.state import ReasoningState
from searchain.text import strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

RECITATION_TOKENS = 160
ANSWER_TOKENS = 32


def recite_and_answer(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """``sc_samples`` recitation paths, each answered from its recitation; the majority wins.

    Each path samples a passage ("The answer to the above question can be found in the
    following Wikipedia passage:") with its own seed, then answers the question from that
    passage, which the prompt shows as data (``<reference>``); ties go to the first path. The
    paper's multiple-path recitation with self-consistency, without retrieval.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    labels = ctx.task_prompt(state.task).answer_labels
    recite = render(feedback_template("recite"), question=state.question)
    recitations, replies = [], []
    for path in range(ctx.sc_samples):
        recitation = generate(
            llm,
            [HumanMessage(recite)],
            stop=["\nQuestion:", "\n\n"],
            max_tokens=RECITATION_TOKENS,
            sample=path,
        )
        recitation = strip_tags(recitation).strip()
        prompt = render(
            feedback_template("recite_answer"), recitation=recitation, question=state.question
        )
        reply = generate(llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=ANSWER_TOKENS)
        recitations.append(recitation)
        replies.append(strip_tags(reply).strip())
    answers = [completed_answer(reply, labels) for reply in replies]
    best, votes = majority(answers)
    emit(runtime, "recite_and_answer_voted", answer=answers[best], votes=votes)
    return {
        "answer": answers[best],
        # Its own words: the passage it recited (from memory, not retrieved) and its answer.
        "generation": f"{recitations[best]} {replies[best]}",
        "cot": recitations,
        "votes": votes,
        "queries": [],
        "paragraphs": [],
        "steps": len(recitations),
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + ["no_final_answer"] * answers.count(""),
    }
