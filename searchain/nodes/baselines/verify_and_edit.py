"""Verify-and-Edit (Zhao et al., ACL 2023): check an unsure CoT-SC rationale against retrieval."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.nodes.baselines.steps import short_answer
from searchain.nodes.shared import ANSWER_MARK, completed_answer, retrieve
from searchain.prompts import feedback_template, render
from searchain.state import ReasoningState
from searchain.text import split_sentences
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

MAX_EDITS = 4
"""Rationale sentences verified per question."""


def route_consistency(
    state: ReasoningState, runtime: Runtime[Context]
) -> Literal["verify_and_edit", "reply"]:
    """Edit only when the vote is unsure: at most half of the samples agree (the paper's rule)."""
    samples = context_of(runtime, state.settings).sc_samples
    return "reply" if state.votes * 2 > samples else "verify_and_edit"


def verify_and_edit(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Verify each sentence of the winning rationale, edit it with what IR says, answer again.

    Each sentence gets a verifying question (LLM), K paragraphs for it (the retriever), and
    an answer from them (IRCoT's Direct reader); the edited rationale is those checked facts,
    from which the LLM states the answer again.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    labels = ctx.task_prompt(state.task).answer_labels
    rationale = [s for s in split_sentences(state.generation) if not ANSWER_MARK.search(s)][
        :MAX_EDITS
    ]
    paragraphs, queries, edited = list(state.paragraphs), list(state.queries), []
    for sentence in rationale:
        ask = render(feedback_template("verify_question"), sentence=sentence)
        question = generate(llm, [HumanMessage(ask)], stop=["\n"], max_tokens=48).strip()
        if not question:
            continue
        found = retrieve(ctx, state.uploads, question, ctx.ircot_k, paragraphs)
        fact = short_answer(ctx, llm, question, found, asked=state.question)
        paragraphs += found
        queries.append(question)
        edited.append(f"{question} {fact}.")
    prompt = render(
        feedback_template("verify_and_edit_answer"),
        question=state.question,
        rationale=" ".join(edited),
    )
    reply = generate(llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=32)
    answer = completed_answer(reply, labels) or state.answer
    emit(runtime, "verified_and_edited", edits=len(edited), answer=answer)
    return {
        "answer": answer,
        "generation": " ".join([*edited, reply.strip()]),
        "paragraphs": paragraphs,
        "queries": queries,
        "steps": state.steps + len(edited),
    }
