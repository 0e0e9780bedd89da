"""DSP (Khattab et al., 2022): Demonstrate-Search-Predict's multi-hop program.

Two hops: a search query written from the question (DSP's rewrite template), then one written
from the question and the passages found (its hop template); ``ircot_k`` passages each. Then
Predict: a chain of thought over all the passages ending in "Answer:" (its QA-with-CoT
template). Demonstrate: the demonstrations are DSP's bootstrapped ones when ``dsp_demos`` names
a file of them (:func:`searchain.methods.dsp.bootstrap_dsp_demos`: the program run on tuning
questions, kept where it answered right, each stage's rationale and output shown in that
stage's prompt), then, up to ``DEMOS``, bare question/answer pairs of the data set's IRCoT
demonstrations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.cache import load_once
from searchain.context import Context, context_of, thread_settings
from searchain.documents.uploads import Upload
from searchain.errors import SettingError
from searchain.events import emit
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import feedback_template, render
from searchain.prompts.ircot import cap_words, load_demos
from searchain.state import FormatFailure, ReasoningState
from searchain.text import normalize_answer, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm
from searchain.types import Passage

HOPS = 2
"""The multi-hop program's hops (DSP's ``max_hops``)."""
DEMOS = 7
"""Demonstrations in each prompt (DSP's example program uses 7)."""
QUERY_TOKENS = 96
ANSWER_TOKENS = 160
_QUERY = re.compile(r"Search Query:\s*(?P<query>[^\n]+)", re.IGNORECASE)
_ANSWER = re.compile(r"Answer:\s*(?P<answer>[^\n]+)", re.IGNORECASE)
TEMPLATES = ("dsp_query", "dsp_hop", "dsp_answer")
"""Each stage's template: the two hops, then Predict."""
LEADS = (
    "To answer this question, we first need to find out",
    "Based on the context, we have learned the following.",
    "",
)
"""How each template's rationale begins (the model continues it)."""


@dataclass
class Stage:
    """One stage of the program as it ran: what it was shown and what the LLM wrote."""

    context: str
    """The passages shown, as DSP numbers them (none for the first hop)."""
    rationale: str
    """The reasoning the LLM wrote before its output."""
    output: str
    """The search query, or the answer (empty when the reply had none)."""
    reply: str
    """The whole reply."""


def dsp(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Search twice, each query written by the LLM, then predict the answer from the passages.

    A reply without "Search Query:" searches with the question (counted as ``no_query``); an
    answer without "Answer:" falls back to the reply's stated answer (``no_final_answer``).
    """
    ctx = context_of(runtime, state.settings)
    stages, found, failures = run_program(
        ctx, resolve_llm(ctx.llm), state.question, state.task, state.uploads
    )
    answer = stages[-1].output
    emit(runtime, "dsp_answered", answer=answer, passages=len(found))
    written = [stage.reply for stage in stages]
    return {
        "answer": answer,
        "generation": " ".join(written),
        "cot": written,
        "paragraphs": found,
        "queries": [stage.output or state.question for stage in stages[:HOPS]],
        "steps": HOPS + 1,
        "settings": thread_settings(ctx),
        "format_failures": state.format_failures + failures,
    }


def run_program(
    ctx: Context,
    llm: BaseChatModel,
    question: str,
    task: str | None = None,
    uploads: Sequence[Upload] = (),
) -> tuple[list[Stage], list[Passage], list[FormatFailure]]:
    """DSP's program on ``question``: its stages, the passages found, the unreadable replies.

    ``uploads``: the files sent in the question's thread, searched as its runs search them.
    """
    bootstrapped = [d for d in load_dsp_demos(ctx.dsp_demos) if not _same(d["question"], question)]
    bare = load_demos(ctx.ircot_demos, leave_out=question)[: max(0, DEMOS - len(bootstrapped))]
    found: list[Passage] = []
    stages: list[Stage] = []
    failures: list[FormatFailure] = []
    for index, template in enumerate(TEMPLATES):
        shown = [_demo(d, index) for d in bootstrapped[:DEMOS]]
        shown += [f"Question: {d.question}\nAnswer: {d.answer}\n\n---\n\n" for d in bare]
        context = _context(found)
        prompt = render(
            feedback_template(template), demos="".join(shown), question=question, context=context
        )
        tokens = ANSWER_TOKENS if template == "dsp_answer" else QUERY_TOKENS
        reply = strip_tags(
            generate(llm, [HumanMessage(prompt)], stop=["\n\n", "\n---"], max_tokens=tokens)
        ).strip()
        pattern = _ANSWER if template == "dsp_answer" else _QUERY
        match = pattern.search(reply)
        rationale = reply[: match.start()].strip() if match else reply
        if template == "dsp_answer":
            labels = ctx.task_prompt(task).answer_labels
            output = completed_answer(match.group("answer") if match else reply, labels)
            failures += [] if match else ["no_final_answer"]
        else:
            output = match.group("query").strip() if match else ""
            failures += [] if match else ["no_query"]
            found += retrieve(ctx, uploads, output or question, ctx.ircot_k, have=found)
        stages.append(Stage(context, rationale, output, reply))
    return stages, found, failures


def _demo(demo: dict[str, Any], index: int) -> str:
    """A bootstrapped demonstration as stage ``index`` shows it: its fields of that stage."""
    stage = demo["stages"][index]
    field = "Answer" if index == HOPS else "Search Query"
    context = f"Context:\n{stage['context']}\n\n" if index else ""
    lead = f"{LEADS[index]} " if LEADS[index] else ""
    return (
        f"{context}Question: {demo['question']}\n"
        f"Rationale: Let's think step by step. {lead}{stage['rationale']}\n"
        f"{field}: {stage['output']}\n\n---\n\n"
    )


def _same(first: str, second: str) -> bool:
    return normalize_answer(first) == normalize_answer(second)


def load_dsp_demos(path: str) -> list[dict[str, Any]]:
    """Bootstrapped demonstrations from ``path`` (``""``: none), checked once per process."""
    return load_once(("dsp_demos", path), lambda: _read(path)) if path else []


def _read(path: str) -> list[dict[str, Any]]:
    if not Path(path).is_file():
        raise SettingError(
            "DSP demonstrations {path!r} do not exist: build them with {dsp_build}",
            settings=("dsp_build",),
            path=path,
        )
    demos = json.loads(Path(path).read_text(encoding="utf-8"))
    fields = {"context", "rationale", "output"}
    if not isinstance(demos, list) or not all(
        isinstance(d, dict)
        and isinstance(d.get("question"), str)
        and isinstance(d.get("stages"), list)
        and len(d["stages"]) == len(TEMPLATES)
        and all(isinstance(s, dict) and fields <= s.keys() for s in d["stages"])
        for d in demos
    ):
        raise ValueError(
            f"DSP demonstrations {path!r} must be a JSON list of objects with question and "
            f"{len(TEMPLATES)} stages of context, rationale and output (as "
            "searchain.methods.dsp.bootstrap_dsp_demos writes them)"
        )
    return demos


def _context(passages: Sequence[Passage]) -> str:
    """Passages as DSP numbers them: ``[1] «title | text»``."""
    return "\n".join(
        f"[{i}] «{p.title} | {cap_words(p.text)}»" for i, p in enumerate(passages, start=1)
    )
