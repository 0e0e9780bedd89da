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
    """One breadth-first step: expand every kept chain, retrieve, value, keep the best.

    Each chain keeps its own paragraphs (the question's base set, then what its own sentences
    retrieved): a chain is shown only its evidence, and a pruned chain's paragraphs leave with
    it, so ``paragraphs`` — what recall is measured on — is the leading chain's.
    """
    ctx = context_of(runtime, state.settings)
    llm = resolve_llm(ctx.llm)
    labels = ctx.task_prompt(state.task).answer_labels
    queries = list(state.queries)
    # A run checkpointed before chains kept their own paragraphs shares the old pool.
    pools = state.pools or [list(state.paragraphs) for _ in state.frontier or [[]]]
    if not state.steps:  # the base set, as IRCoT's: K paragraphs for the question
        pools = [retrieve(ctx, state.uploads, state.question, ctx.ircot_k) if ctx.ircot_k else []]
        queries += [state.question] if ctx.ircot_k else []
    demos = load_demos(ctx.ircot_demos, leave_out=state.question)
    candidates: list[list[str]] = []
    found: list[list[Passage]] = []  # each candidate's own paragraphs
    for chain, pool in zip(state.frontier or [[]], pools, strict=True):
        prompt = build_prompt(
            style="cot",
            question=state.question,
            paragraphs=pool,
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
                found.append(list(pool))
    for chain, pool in zip(candidates, found, strict=True):  # IR: the new sentence is a query
        room = ctx.ircot_max_paragraphs - len(pool)
        if ctx.ircot_k and room > 0 and not ANSWER_MARK.search(chain[-1]):
            pool += retrieve(ctx, state.uploads, chain[-1], ctx.ircot_k, have=pool)[:room]
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
    kept_pools = [found[i] for i in order[: ctx.tot_breadth]]
    steps = state.steps + 1
    emit(runtime, "tot_step", step=steps, candidates=len(candidates), kept=len(kept))
    if kept:
        best, paragraphs = kept[0], kept_pools[0]
    else:
        best, paragraphs = (state.frontier or [[]])[0], pools[0]
    update: dict[str, Any] = {
        "frontier": kept or state.frontier,
        "pools": kept_pools if kept else pools,
        "steps": steps,
        "paragraphs": paragraphs,
        "queries": queries,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + failures,
    }
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


def route_tot(state: ReasoningState) -> Literal["tot_step", "reply"]:
    """Search on until a chain states the answer or the step bound is reached."""
    return "reply" if state.done else "tot_step"
