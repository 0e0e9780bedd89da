"""Tree-of-Thought with IR (Yao et al., NeurIPS 2023): breadth-first search over reasoning chains.

Each step extends every kept chain by ``tot_samples`` sampled next sentences (IRCoT's reasoning
prompt over the paragraphs found so far); each new sentence retrieves ``ircot_k`` paragraphs
(the "with IR"); the LLM values each new chain with ToT's sure/likely/impossible prompt, and the
best ``tot_breadth`` are kept. The search ends when the best chain states its answer, or after
``ircot_max_steps`` steps, when IRCoT's Direct reader answers from the paragraphs.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.graph import END
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.baselines.steps import short_answer
from searchain.nodes.shared import ANSWER_MARK, final_answer, retrieve
from searchain.prompts import feedback_template, render
from searchain.prompts.ircot import build_prompt, load_demos
from searchain.state import ReasoningState
from searchain.text import split_sentences, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm
from searchain.types import Passage

VALUES = {"sure": 20.0, "likely": 1.0, "impossible": 0.001}
"""ToT's value of each verdict (its ``value_map``)."""
_VERDICT = re.compile(r"\b(sure|likely|impossible)\b", re.IGNORECASE)
SENTENCE_TOKENS = 96
VALUE_TOKENS = 8


def tot_step(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """One breadth-first step: expand every kept chain, retrieve, value, keep the best."""
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    labels = ctx.task_prompt(state.task).answer_labels
    paragraphs, queries = list(state.paragraphs), list(state.queries)
    if not state.steps and ctx.ircot_k:  # the base set, as IRCoT's: K paragraphs for the question
        paragraphs += retrieve(ctx, state.question, ctx.ircot_k)
        queries.append(state.question)
    demos = load_demos(ctx.ircot_demos, leave_out=state.question)
    candidates: list[list[str]] = []
    for chain in state.frontier or [[]]:
        prompt = build_prompt(
            style="cot",
            question=state.question,
            paragraphs=paragraphs,
            cot=chain,
            demos=demos,
            budget=ctx.ircot_prompt_tokens,
            labels=labels,
        )
        for sample in range(ctx.tot_samples):
            reply = generate(
                llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=SENTENCE_TOKENS, sample=sample
            )
            sentences = split_sentences(strip_tags(reply))
            grown = [*chain, sentences[0]] if sentences else None
            if grown and grown not in candidates:
                candidates.append(grown)
    for chain in candidates:  # IR: each new sentence is a query, as IRCoT's retrieve step
        room = ctx.ircot_max_paragraphs - len(paragraphs)
        if ctx.ircot_k and room > 0 and not ANSWER_MARK.search(chain[-1]):
            paragraphs += retrieve(ctx, chain[-1], ctx.ircot_k, have=paragraphs)[:room]
            queries.append(chain[-1])
    values, failures = [], []
    for chain in candidates:
        prompt = render(
            feedback_template("tot_value"), question=state.question, reasoning=" ".join(chain)
        )
        verdict = _VERDICT.search(
            generate(llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=VALUE_TOKENS)
        )
        if verdict is None:
            failures.append("no_value")
        values.append(VALUES[verdict.group(1).lower()] if verdict else 0.0)
    order = sorted(range(len(candidates)), key=lambda i: -values[i])  # stable: first sampled wins
    kept = [candidates[i] for i in order[: ctx.tot_breadth]]
    steps = state.steps + 1
    emit(runtime, "tot_step", step=steps, candidates=len(candidates), kept=len(kept))
    update: dict[str, Any] = {
        "frontier": kept,
        "steps": steps,
        "paragraphs": paragraphs,
        "queries": queries,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + failures,
    }
    best = kept[0] if kept else state.frontier[0] if state.frontier else []
    stated = bool(best) and bool(ANSWER_MARK.search(best[-1]))
    if not (stated or not kept or steps >= ctx.ircot_max_steps):
        return update
    return {**update, **_finish(ctx, llm, state.question, best, paragraphs, labels, stated)}


def _finish(
    ctx: Context,
    llm: BaseChatModel,
    question: str,
    best: list[str],
    paragraphs: list[Passage],
    labels: tuple[str, ...],
    stated: bool,
) -> dict[str, Any]:
    """The answer: the one the best chain states, else IRCoT's Direct reader's."""
    if stated:
        answer, reply = final_answer(best[-1], labels), ""
    else:
        reply = short_answer(ctx, llm, question, paragraphs, asked=question, labels=labels)
        answer = reply
    return {
        "answer": answer,
        "generation": " ".join([*best, reply]).strip(),
        "cot": best,
        "done": True,
    }


def route_tot(state: ReasoningState) -> Literal["tot_step", "__end__"]:
    """Search on until a chain states the answer or the step bound is reached."""
    return END if state.done else "tot_step"
