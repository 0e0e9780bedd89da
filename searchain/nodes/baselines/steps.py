"""What the baselines' nodes share: answering a sub-question from paragraphs, voting.

Every baseline searches the same retriever, asks the same LLM and answers a sub-question from
paragraphs with IRCoT's Direct reader prompt (its demonstrations included), so the methods differ
only in their control flow and their own papers' prompts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from searchain.context import Context
from searchain.nodes.shared import final_answer
from searchain.prompts.ircot import build_prompt, load_demos
from searchain.text import normalize_answer, strip_tags
from searchain.tools.llms.generate import generate
from searchain.types import Passage

SHORT_ANSWER_TOKENS = 64


def short_answer(
    ctx: Context,
    llm: BaseChatModel,
    question: str,
    paragraphs: Sequence[Passage],
    *,
    asked: str,
    labels: Sequence[str] = (),
) -> str:
    """A short answer to ``question`` from ``paragraphs`` (IRCoT's Direct reader prompt).

    ``asked`` is the question the run answers (``question`` is one of its sub-questions): its
    own demonstration, if it is one, is never shown.
    """
    prompt = build_prompt(
        style="direct",
        question=question,
        paragraphs=paragraphs,
        demos=load_demos(ctx.ircot_demos, leave_out=asked),
        budget=ctx.ircot_prompt_tokens,
        labels=labels,
    )
    reply = generate(llm, [HumanMessage(prompt)], stop=["\n"], max_tokens=SHORT_ANSWER_TOKENS)
    return final_answer(strip_tags(reply), labels)


def majority(answers: Sequence[str]) -> tuple[int, int]:
    """The majority answer: the index of its first occurrence, and its count.

    Answers are compared normalised; empty ones never win; ``(0, 0)`` when all are empty.
    """
    keys = [normalize_answer(a) for a in answers]
    counts = Counter(k for k in keys if k)
    if not counts:
        return 0, 0
    best = max(counts, key=lambda k: (counts[k], -keys.index(k)))
    return keys.index(best), counts[best]
