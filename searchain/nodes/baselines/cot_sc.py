"""CoT-SC (Wang et al., ICLR 2023): sample several chains of thought, vote on their answers."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.baselines.steps import majority
from searchain.nodes.shared import final_answer
from searchain.prompts.ircot import build_prompt, load_demos
from searchain.state import ReasoningState
from searchain.text import extract_final_answer
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

SAMPLE_TOKENS = 256


def cot_sc_sample(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Sample ``sc_samples`` closed-book chains of thought; the majority answer wins.

    The prompt is IRCoT's CoT prompt without paragraphs (its demonstrations closed-book);
    each sample has its own seed. Ties go to the answer sampled first.
    """
    ctx = context_of(runtime, state.settings)
    labels = ctx.task_prompt(state.task).answer_labels
    prompt = build_prompt(
        style="cot",
        question=state.question,
        paragraphs=[],
        demos=load_demos(ctx.ircot_demos, leave_out=state.question),
        budget=ctx.ircot_prompt_tokens,
        labels=labels,
    )
    llm = resolve_llm(ctx.llm)
    samples = [
        generate(
            llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=SAMPLE_TOKENS, sample=i
        ).strip()
        for i in range(ctx.sc_samples)
    ]
    answers = [final_answer(s, labels) for s in samples]
    unread = [s for s in samples if not extract_final_answer(s, labels)]
    best, votes = majority(answers)
    emit(runtime, "cot_sc_voted", answer=answers[best], votes=votes, samples=len(samples))
    return {
        "cot": samples,
        "answer": answers[best],
        "generation": samples[best],
        "votes": votes,
        "steps": len(samples),
        "paragraphs": state.paragraphs,
        "queries": state.queries,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + ["no_final_answer"] * len(unread),
    }
