"""DSP's Demonstrate stage: demonstrations bootstrapped from a data set's tuning questions.

As DSP's ``annotate`` (Khattab et al., 2022): the program runs on training examples and the
examples it answers right are kept with every stage's intermediate output (rationale, search
query, answer), to show each stage how the whole program solves a question. What differs: the
training examples are the data set's tuning questions (never a reported one), at most
``Context.dsp_bootstrap`` of them are run (24 by default), in order, and "right" is the data
set's own check (exact match of the answer, label accuracy for yes/no and fact checking). A set
that finds none leaves DSP with bare question/answer pairs, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from langchain_core.language_models import BaseChatModel

from searchain.context import Context
from searchain.eval.datasets import Record
from searchain.eval.metrics import exact_match, label_accuracy
from searchain.nodes.baselines.dsp import DEMOS, run_program

VERSION = 1
"""Changes when the choice of demonstrations does, so cached ones are built again."""


def right(record: Record, answer: str) -> bool:
    """Whether ``answer`` is the record's gold answer, by the data set's own check."""
    if record.task in ("yesno", "factcheck"):
        return label_accuracy(answer, record.answers[0]) == 1.0
    return exact_match(answer, record.answers) == 1.0


def bootstrap_dsp_demos(
    records: Sequence[Record],
    ctx: Context,
    llm: BaseChatModel,
    *,
    want: int = DEMOS,
) -> list[dict[str, Any]]:
    """Run DSP's program on tuning ``records``; keep up to ``want`` it got right.

    At most ``ctx.dsp_bootstrap`` of them run. ``ctx`` is the run's context without
    bootstrapped demonstrations (the bare pairs only).
    """
    kept: list[dict[str, Any]] = []
    for record in records[: ctx.dsp_bootstrap]:
        stages, _, failures = run_program(ctx, llm, record.question, record.task)
        if not failures and right(record, stages[-1].output):
            kept.append(
                {
                    "question": record.question,
                    "answer": stages[-1].output,
                    "stages": [
                        {k: v for k, v in asdict(stage).items() if k != "reply"} for stage in stages
                    ],
                }
            )
        if len(kept) == want:
            break
    return kept
