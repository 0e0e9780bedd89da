"""DSP (Khattab et al., 2022), with demonstrations bootstrapped from the tuning questions.

Its Demonstrate stage, run before the run's first question.
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
from typing import TYPE_CHECKING, Any

from searchain.methods.ircot import few_shot
from searchain.methods.method import Method, Setup

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from searchain.context import Context
    from searchain.questions.record import Record

VERSION = 1
"""Changes when the choice of demonstrations does, so cached ones are built again."""


def right(record: Record, answer: str) -> bool:
    """Whether ``answer`` is the record's gold answer, by the data set's own check."""
    from searchain.questions.metrics import exact_match, label_accuracy

    if record.task in ("yesno", "factcheck"):
        return label_accuracy(answer, record.answers[0]) == 1.0
    return exact_match(answer, record.answers) == 1.0


def bootstrap_dsp_demos(
    records: Sequence[Record],
    ctx: Context,
    llm: BaseChatModel,
    *,
    want: int | None = None,
) -> list[dict[str, Any]]:
    """Run DSP's program on tuning ``records``; keep up to ``want`` it got right.

    ``want`` is DSP's :data:`~searchain.nodes.baselines.dsp.DEMOS` by default. At most
    ``ctx.dsp_bootstrap`` of them run. ``ctx`` is the run's context without bootstrapped
    demonstrations (the bare pairs only).
    """
    from searchain.nodes.baselines.dsp import DEMOS, run_program

    want = DEMOS if want is None else want
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


def prepare(method: Method, setup: Setup) -> dict[str, Any]:
    """IRCoT's demonstrations, and DSP's, bootstrapped with the run's context.

    Its program runs with bare question/answer demonstrations on the tuning questions, once per
    data set, model, K and demonstrations; kept in the run's cache.
    """
    fields = few_shot(method, setup)
    bare = method.context(llm=setup.llm, retriever=setup.retriever, **fields)

    def build() -> list[dict[str, Any]]:
        return bootstrap_dsp_demos(setup.tuning(), bare, setup.llm)

    key = (VERSION, setup.k, setup.demos, bare.dsp_bootstrap)
    return {**fields, "dsp_demos": str(setup.cached("dsp", build, *key))}


DSP = Method(
    "dsp",
    "searchain.graph.baselines:build_dsp",
    "DSP: two LLM-written search hops, then a chain-of-thought answer over the passages",
    prepare=prepare,
)
