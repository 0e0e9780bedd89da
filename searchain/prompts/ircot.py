"""IRCoT's few-shot prompts as the reference code builds them.

Demonstrations ("Wikipedia Title: …" paragraphs, gold and distractors, then ``Q:``/``A:`` with
the chain of thought) come from ``searchain/data/ircot_demos/<name>.json`` (built from each
shared data set's tuning split, or IRCoT's published ones) or a user's file of the same shape;
as many as fit the token budget are shown, in order. Paragraphs are cut at 350 words in prompts,
as in the reference.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from searchain.cache import load_once
from searchain.prompts import as_data, feedback_template, render
from searchain.text import normalize_answer
from searchain.types import Passage

WORD_CAP = 350
"""Words of a paragraph shown in a prompt (the reference's cap)."""
SHIPPED = (
    "musique",
    "hotpotqa",
    "2wikimultihopqa",
    "paper-musique",
    "paper-hotpotqa",
    "paper-2wikimultihopqa",
    "paper-iirc",
)
"""The demonstration sets that ship: built from each data set's tuning split, and IRCoT's
published ones (``paper-*``: appendix G's questions and chains of thought, with the shared
corpus's paragraphs they name; :mod:`searchain.eval.paper_demos`)."""


@dataclass(frozen=True)
class Demo:
    """One annotated demonstration."""

    question: str
    """The demonstration's question."""
    paragraphs: tuple[tuple[str, str], ...]
    """Its gold and distractor paragraphs, ``(title, text)``, in the order shown."""
    cot: tuple[str, ...]
    """Its chain of thought, one sentence each, without the closing answer sentence."""
    answer: str
    """Its gold answer."""


def load_demos(name: str, *, leave_out: str) -> tuple[Demo, ...]:
    """The demonstrations ``name`` for the question ``leave_out``, which is never among them.

    ``name`` is a shipped set (:data:`SHIPPED`) or a file; ``""`` is none
    (zero-shot). The shipped sets come from the data sets' tuning split, so a question evaluated
    on that split may be a demonstration: shown, it would be given its own gold answer. The
    demonstration whose question is ``leave_out`` (compared normalised) is therefore left out,
    for every method and every call of a run (``leave_out`` is the question being answered, not
    a sub-question). Loaded once per process.
    """
    if not name:
        return ()
    demos = load_once(("ircot_demos", name), lambda: _read_demos(name))
    asked = normalize_answer(leave_out)
    return tuple(d for d in demos if normalize_answer(d.question) != asked)


def _read_demos(name: str) -> tuple[Demo, ...]:
    if name in SHIPPED:
        source = resources.files("searchain").joinpath(f"data/ircot_demos/{name}.json")
        text = source.read_text(encoding="utf-8")
    else:
        path = Path(name)
        if not path.is_file():
            raise ValueError(
                f"IRCoT demonstrations {name!r} are neither {', '.join(SHIPPED)} nor a file"
            )
        text = path.read_text(encoding="utf-8")
    try:
        return tuple(
            Demo(
                d["question"],
                tuple((p["title"], p["text"]) for p in d["paragraphs"]),
                tuple(d["cot"]),
                d["answer"],
            )
            for d in json.loads(text)
        )
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(
            f"IRCoT demonstrations {name!r} must be a JSON list of objects with question, "
            f"paragraphs [{{title, text}}], cot [sentences] and answer ({exc!r})"
        ) from None


def cap_words(text: str, limit: int = WORD_CAP) -> str:
    """``text`` cut to its first ``limit`` words."""
    words = text.split()
    return text if len(words) <= limit else " ".join(words[:limit])


def paragraph_blocks(paragraphs: Sequence[tuple[str, str]]) -> str:
    """Paragraphs in the reference format, each capped, each followed by a blank line."""
    return "".join(f"Wikipedia Title: {title}\n{cap_words(text)}\n\n" for title, text in paragraphs)


def reference_block(paragraphs: Sequence[tuple[str, str]]) -> str:
    """:func:`paragraph_blocks` inside a ``<reference>`` block (none without paragraphs).

    Retrieved text is data: its angle brackets are neutralised (:func:`as_data`), so it cannot
    close the block and pose as instructions.
    """
    if not paragraphs:
        return ""
    return f"<reference>\n{as_data(paragraph_blocks(paragraphs))}</reference>\n\n"


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate (4 tokens per 3 words), enough to fit demonstrations."""
    return math.ceil(len(text.split()) * 4 / 3)


def _demo_text(demo: Demo, style: str, closed_book: bool) -> str:
    shown = "" if closed_book else reference_block(demo.paragraphs)
    closing = f"So the answer is: {demo.answer}."
    answer = " ".join([*demo.cot, closing]) if style == "cot" else demo.answer
    return f"{shown}Q: {as_data(demo.question)}\nA: {as_data(answer)}\n\n\n"


def build_prompt(
    *,
    style: str,
    question: str,
    paragraphs: Sequence[Passage],
    cot: Sequence[str] = (),
    demos: Sequence[Demo] = (),
    budget: int = 3000,
    labels: Sequence[str] = (),
) -> str:
    """The prompt of one IRCoT call: instruction, the demonstrations that fit, the instance.

    ``style`` is ``cot`` (the reasoning step and the CoT answer step) or ``direct``. Without
    ``paragraphs`` (no retrieval) the demonstrations are shown closed-book as well. Paragraphs
    sit in ``<reference>`` blocks and the reasoning so far in ``<reasoning>`` tags (the
    reference code's format inside this project's data delimiters).
    """
    closed_book = not paragraphs
    instruction = render(
        feedback_template(f"ircot_{style}_instruction"),
        answer_instruction=f" The answer must be one of: {', '.join(labels)}." if labels else "",
    )
    shown = reference_block([(p.title, p.text) for p in paragraphs])
    # The reasoning so far is the model's own text, which may repeat a passage: data as well.
    so_far = f" <reasoning>{as_data(' '.join(cot))}</reasoning>" if cot else ""
    instance = f"{shown}Q: {as_data(question)}\nA:{so_far}"
    # The instance is given at least half the budget, so that while it stays under that, every
    # call shows the same demonstrations: a local model then reuses their evaluated prefix.
    room = budget - estimate_tokens(instruction) - max(estimate_tokens(instance), budget // 2)
    fitted = []
    for demo in demos:
        text = _demo_text(demo, style, closed_book)
        room -= estimate_tokens(text)
        if room < 0:
            break
        fitted.append(text)
    return f"{instruction}\n\n{''.join(fitted)}{instance}"
