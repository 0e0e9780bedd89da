"""ReAct (Yao et al., 2023): Thought, Action (Search, Lookup, Finish), Observation, repeated."""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, thread_settings
from searchain.events import emit
from searchain.nodes.shared import completed_answer, retrieve
from searchain.prompts import as_data, feedback_template, render
from searchain.state import ReasoningState
from searchain.text import split_sentences, strip_tags
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

ACTION = re.compile(r"Action \d+:\s*(Search|Lookup|Finish)\[(.*?)\]?\s*$", re.IGNORECASE | re.M)
STEP_TOKENS = 128
"""One thought and one action."""
SHOWN_SENTENCES = 5
OBSERVED = "\nObservation {n}: <reference>"
"""How step ``n``'s observation opens in the transcript; its text is closed by ``</reference>``."""
"""Sentences of a searched paragraph shown as the observation (ReAct shows its first ones)."""


def react_step(state: ReasoningState, runtime: Runtime[Context]) -> dict[str, Any]:
    """One Thought/Action pair and the Observation its action returns.

    ``Search[q]`` shows the first sentences of the top paragraph for ``q`` (the same BM25
    retriever as every method); ``Lookup[k]`` the next sentence holding ``k`` in that paragraph;
    ``Finish[a]`` ends with ``a``. At the step limit the Finish action is forced.
    """
    ctx = context_of(runtime, state.settings)
    n = state.steps + 1
    forced = state.steps >= ctx.ircot_max_steps
    head = render(feedback_template("react"), question=state.question)
    transcript = "".join(state.cot)  # pieces are stored already delimited
    prompt = head + transcript + (f"Action {n}: Finish[" if forced else f"Thought {n}:")
    stop = ["]"] if forced else [f"\nObservation {n}", "\nQuestion:"]
    reply = generate(
        resolve_llm(ctx.llm), [HumanMessage(prompt)], stop=stop, max_tokens=STEP_TOKENS
    )
    reply = as_data(strip_tags(reply).strip())
    written = f"Action {n}: Finish[{reply}]" if forced else f"Thought {n}: {reply}"
    update: dict[str, Any] = {"steps": n, "settings": thread_settings(ctx)}
    found = ACTION.findall(written)
    kind, argument = (found[-1][0].lower(), found[-1][1].strip()) if found else ("", "")
    if kind == "finish":
        labels = ctx.task_prompt(state.task).answer_labels
        answer = completed_answer(argument, labels)
        emit(runtime, "react_finished", answer=answer)
        return {
            **update,
            "answer": answer,
            # The papers' cover-EM reads the method's own words: its thoughts and actions,
            # never the observations (retrieved text it was shown).
            "generation": own_words([*state.cot, written]),
            "done": True,
            # Every output field, even when nothing was searched.
            "cot": state.cot,
            "paragraphs": state.paragraphs,
            "queries": state.queries,
        }
    if kind == "search":
        passages = retrieve(ctx, state.uploads, argument, 1)
        observation = (
            " ".join(split_sentences(passages[0].text)[:SHOWN_SENTENCES])
            if passages
            else f"Could not find {argument}."
        )
        update["paragraphs"] = [*state.paragraphs, *passages]
        update["queries"] = [*state.queries, argument]
    elif kind == "lookup":
        observation = _lookup(state, argument)
    else:
        observation = "Invalid action: use Search[entity], Lookup[keyword] or Finish[answer]."
        update["format_failures"] = [*state.format_failures, "invalid_action"]
    emit(runtime, "react_step", step=n, action=kind or "invalid", argument=argument)
    observed = f"{OBSERVED.format(n=n)}{as_data(observation)}</reference>"
    return {**update, "cot": [*state.cot, f"{written}{observed}\n"]}


def own_words(steps: list[str]) -> str:
    """What the model wrote in ``steps`` (transcript pieces): each Thought/Action, no Observation.

    A piece is the model's text, then the observation inside ``OBSERVED``'s delimiter; the
    model's text never holds that delimiter (its tags are stripped), so the cut is exact.
    """
    written = [piece.partition(OBSERVED.format(n=n))[0] for n, piece in enumerate(steps, 1)]
    return " ".join(w.strip() for w in written if w.strip())


def _lookup(state: ReasoningState, keyword: str) -> str:
    """The next sentence holding ``keyword`` in the last searched paragraph, as ReAct shows it."""
    if not state.paragraphs:
        return "No paragraph to look in: Search first."
    hits = [s for s in split_sentences(state.paragraphs[-1].text) if keyword.lower() in s.lower()]
    if not hits:
        return "No more results."
    earlier = 0  # lookups of this keyword since the last search
    for step in reversed(state.cot):
        if "Search[" in step:
            break
        earlier += bool(re.search(rf"Lookup\[{re.escape(keyword)}\]", step, re.IGNORECASE))
    if earlier >= len(hits):
        return "No more results."
    return f"(Result {earlier + 1} / {len(hits)}) {hits[earlier]}"


def route_react(state: ReasoningState) -> Literal["react_step", "reply"]:
    """Act again until Finish (the step bound forces it)."""
    return "reply" if state.done else "react_step"


def route_react_or_back_off(
    state: ReasoningState, runtime: Runtime[Context]
) -> Literal["react_step", "cot_sc_sample", "reply"]:
    """ReAct → CoT-SC (Yao et al.): act again until Finish, else hand over to CoT-SC.

    At the step bound without a Finish, CoT-SC answers instead of a forced ReAct answer.
    """
    if state.done:
        return "reply"
    if state.steps >= context_of(runtime, state.settings).ircot_max_steps:
        return "cot_sc_sample"
    return "react_step"
