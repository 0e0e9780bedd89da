"""Auto-CoT (Zhang et al., ICLR 2023): Zero-Shot-CoT after demonstrations built automatically.

The demonstrations are questions from a data set's tuning split, one per cluster of question
embeddings, with the rationale the same LLM wrote for them zero-shot
(:func:`searchain.methods.auto_cot.build_auto_cot_demos`); they come from ``auto_cot_demos``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.cache import load_once
from searchain.context import Context, context_of, thread_settings
from searchain.errors import SettingError
from searchain.events import emit
from searchain.nodes.shared import completed_answer
from searchain.prompts import feedback_template, render
from searchain.state import ReasoningState
from searchain.text import normalize_answer, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

REASONING_TOKENS = 256
ANSWER_TOKENS = 32


def auto_cot(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The demonstrations, then "Q: … A: Let's think step by step."; the answer extracted after.

    A demonstration of the question asked is left out (they come from the tuning split).
    """
    ctx = context_of(runtime, state.settings)
    if not ctx.auto_cot_demos:
        raise SettingError(
            "auto-cot needs its demonstrations: set {auto_cot_demos} to a file that "
            "{auto_cot_build} wrote",
            settings=("auto_cot_demos", "auto_cot_build"),
        )
    asked = normalize_answer(state.question)
    demos = [d for d in load_demos(ctx.auto_cot_demos) if normalize_answer(d[0]) != asked]
    shown = "".join(
        render(feedback_template("auto_cot_demo"), question=q, rationale=f"{r} The answer is {a}.")
        + "\n\n"
        for q, r, a in demos
    )
    labels = ctx.task_prompt(state.task).answer_labels
    reasoning, reply = zero_shot_cot(resolve_llm(ctx.llm), state.question, shown)
    answer = completed_answer(reply, labels)
    emit(runtime, "auto_cot_answered", answer=answer, demos=len(demos))
    return {
        "answer": answer,
        "generation": f"{reasoning} Therefore, the answer is {reply}",
        "cot": [reasoning],
        "queries": [],
        "paragraphs": [],
        "steps": 1,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + ([] if answer else ["no_final_answer"]),
    }


def zero_shot_cot(llm: BaseChatModel, question: str, demos: str = "") -> tuple[str, str]:
    """Zero-Shot-CoT's two calls (Kojima et al.): the rationale, then "Therefore, the answer is".

    ``demos`` (already rendered) open the first prompt; Auto-CoT builds its demonstrations with
    the same two calls and none.
    """
    prompt = demos + render(feedback_template("auto_cot"), question=question)
    reasoning = strip_tags(
        generate(llm, [HumanMessage(prompt)], stop=["\nQ:", "\n\n\n"], max_tokens=REASONING_TOKENS)
    ).strip()
    extract = render(feedback_template("auto_cot_answer"), question=question, reasoning=reasoning)
    reply = strip_tags(
        generate(llm, [HumanMessage(extract)], stop=["\n"], max_tokens=ANSWER_TOKENS)
    )
    return reasoning, reply.strip()


def load_demos(path: str) -> list[tuple[str, str, str]]:
    """``(question, rationale, answer)`` of each demonstration in ``path``, read once."""
    return load_once(("auto_cot_demos", path), lambda: _read(path))


def _read(path: str) -> list[tuple[str, str, str]]:
    try:
        items = json.loads(Path(path).read_text(encoding="utf-8"))
        return [(d["question"], d["rationale"], d["answer"]) for d in items]
    except FileNotFoundError:
        raise ValueError(f"Auto-CoT demonstrations {path} do not exist") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(
            f"Auto-CoT demonstrations {path} must be a JSON list of objects with question, "
            f"rationale and answer ({exc!r})"
        ) from None
