"""IRCoT answer: a reader step over the collected paragraphs (Direct or CoT prompting)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import final_answer
from searchain.prompts.ircot import build_prompt, load_demos
from searchain.state import ReasoningState
from searchain.text import extract_final_answer, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

BOUNDS = {"direct": (["\n"], 64), "cot": (["\n"], 256)}
"""Stop sequences and token bound per answer style: Direct is one line, CoT one paragraph."""


def ircot_answer(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Answer from the paragraphs: the reply itself (Direct) or its "answer is" (CoT).

    As in the reference, the CoT reader writes a fresh chain of thought over every collected
    paragraph, and when it never says "answer is" its whole generation is the answer. With no
    paragraphs (retrieval off) the prompt and its demonstrations are closed-book.
    """
    ctx = context_of(runtime, state.settings)
    labels = ctx.task_prompt(state.task).answer_labels
    prompt = build_prompt(
        style=ctx.ircot_answer,
        question=state.question,
        paragraphs=state.paragraphs,
        demos=load_demos(ctx.ircot_demos, leave_out=state.question),
        budget=ctx.ircot_prompt_tokens,
        labels=labels,
    )
    stop, max_tokens = BOUNDS[ctx.ircot_answer]
    llm = resolve_llm(ctx.llm)
    reply = strip_tags(generate(llm, [HumanMessage(prompt)], stop=stop, max_tokens=max_tokens))
    answer = final_answer(reply, labels)  # one line (stop "\n"): its "answer is", else itself
    # Direct's reply is the answer; CoT's must say "answer is", as its demonstrations do.
    unread = not answer if ctx.ircot_answer == "direct" else not extract_final_answer(reply, labels)
    emit(runtime, "ircot_answered", answer=answer)
    return {
        "answer": answer,
        "generation": " ".join([*state.cot, reply]).strip(),
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + (["no_final_answer"] if unread else []),
    }
