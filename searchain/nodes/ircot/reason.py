"""IRCoT reason: the LLM writes the next sentence of the chain of thought."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.conversation import progress
from searchain.events import emit
from searchain.nodes.shared import ANSWER_MARK
from searchain.prompts.ircot import build_prompt, load_demos
from searchain.state import ReasoningState
from searchain.text import split_sentences, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

MAX_TOKENS = 96
"""One sentence of reasoning (generation stops at the line's end; the first sentence is kept)."""


def ircot_reason(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Append one sentence: the first sentence of the LLM's continuation of the CoT.

    The reference keeps the first sentence of each generation (a real sentence splitter, so
    "St. Louis" stays whole); that sentence is the next retrieval query.
    """
    ctx = context_of(runtime, state.settings)
    prompt = build_prompt(
        style="cot",
        question=state.question,
        paragraphs=state.paragraphs,
        cot=state.cot,
        demos=load_demos(ctx.ircot_demos, leave_out=state.question),
        budget=ctx.ircot_prompt_tokens,
        labels=ctx.task_prompt(state.task).answer_labels,
    )
    reply = generate(
        resolve_llm(ctx.llm), [HumanMessage(prompt)], stop=["\n"], max_tokens=MAX_TOKENS
    )
    sentences = split_sentences(strip_tags(reply))
    sentence = sentences[0] if sentences else ""
    emit(runtime, "ircot_reasoned", step=state.steps + 1, sentence=sentence)
    said = f"Step {state.steps + 1}: {sentence}" if sentence else "The model wrote no sentence"
    return {"cot": [*state.cot, sentence], "steps": state.steps + 1, **progress(state, said)}


def route_reason(
    state: ReasoningState, runtime: Runtime[Context]
) -> Literal["ircot_retrieve", "ircot_answer"]:
    """Stop reasoning on "answer is", the step limit, or a sentence that brings nothing new.

    An empty sentence, or one already in the chain of thought (small models loop), would only
    retrieve the same paragraphs again; otherwise the new sentence is the next query.
    """
    last = state.cot[-1] if state.cot else ""
    done = (
        not last
        or last in state.cot[:-1]
        or ANSWER_MARK.search(last)
        or state.steps >= context_of(runtime, state.settings).ircot_max_steps
    )
    return "ircot_answer" if done else "ircot_retrieve"
