"""Methods by name: SearChain, its ablations, IRCoT, and the baselines both papers compare with.

A method is a graph plus context settings, so every method runs with the same LLM, retriever
and reader specs and is compared on equal terms. IRCoT's own baselines are its graph with
retrieval or interleaving switched off (NoR: Direct, CoT; OneR); SearChain's Table 1 baselines
(Self-Ask, CoT-SC, ReAct, Plan-and-Solve, Verify-and-Edit) have graphs of their own
(:mod:`searchain.graph.baselines`); the ablations are SearChain's graph with one kind of
interaction switched off, as in Xu et al.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from searchain.cache import load_once
from searchain.context import Context


@dataclass(frozen=True)
class Method:
    """A runnable method: which graph, and which context settings it overrides."""

    name: str
    """The name used by ``searchain eval --method`` and in results files."""
    graph: Literal[
        "searchain", "ircot", "self_ask", "react", "cot_sc", "plan_and_solve", "verify_and_edit"
    ]
    """The graph it runs."""
    description: str
    """One line for ``--help``, docs and reports."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Context fields it sets, over the caller's."""
    task: str | None = None
    """Prompt family forced for every question (``no_ir``); ``None`` keeps the question's own."""
    k_field: str | None = "ircot_k"
    """The context field ``searchain eval --k`` sets (paragraphs per retrieval); ``None`` for
    methods that retrieve nothing or always the top 1 (SearChain, ReAct's Search)."""
    uses_ir: bool = True
    """Whether the method retrieves (Table 1's "with IR" half)."""

    def context(self, **fields: Any) -> Context:
        """The run's context: the caller's ``fields`` with this method's settings on top."""
        return Context(**{**fields, **self.settings})

    def compiled(self) -> Any:
        """The method's compiled graph, built once per process."""
        if self.graph == "ircot":
            from searchain.graph.ircot import build_graph
        elif self.graph == "searchain":
            from searchain.graph.searchain import build_graph
        else:
            from searchain.graph.baselines import BUILDERS

            build_graph = BUILDERS[self.graph]
        return load_once(("graph", self.graph), build_graph)


METHODS = {
    m.name: m
    for m in (
        Method(
            "direct",
            "ircot",
            "the LLM answers at once, no retrieval",
            {"ircot_k": 0, "ircot_answer": "direct"},
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "cot",
            "ircot",
            "chain-of-thought, then the answer; no retrieval",
            {"ircot_k": 0, "ircot_answer": "cot"},
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "oner",
            "ircot",
            "one retrieval of K (oner_k) paragraphs with the question, then the answer",
            {"ircot_max_steps": 0},
            k_field="oner_k",
        ),
        Method("ircot", "ircot", "IRCoT: retrieval interleaved with chain-of-thought sentences"),
        Method(
            "self-ask",
            "self_ask",
            "Self-Ask: follow-up questions answered from retrieved paragraphs",
        ),
        Method(
            "self-ask-no-ir",
            "self_ask",
            "Self-Ask without IR: the LLM answers its own follow-up questions",
            {"ircot_k": 0},
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "cot-sc",
            "cot_sc",
            "CoT-SC: sampled chains of thought, majority vote; no retrieval",
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "react",
            "react",
            "ReAct: Thought/Action (Search, Lookup, Finish)/Observation",
            k_field=None,
        ),
        Method(
            "plan-and-solve",
            "plan_and_solve",
            "Plan-and-Solve with the K (oner_k) paragraphs retrieved for the question",
            k_field="oner_k",
        ),
        Method(
            "plan-and-solve-no-ir",
            "plan_and_solve",
            "Plan-and-Solve, zero-shot, no retrieval",
            {"ircot_k": 0},
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "verify-and-edit",
            "verify_and_edit",
            "Verify-and-Edit: CoT-SC, unsure rationales checked and edited against retrieval",
        ),
        Method(
            "searchain",
            "searchain",
            "SearChain: Chain-of-Query checked and completed by IR",
            k_field=None,
        ),
        Method(
            "searchain-no-ir",
            "searchain",
            "SearChain's chain without IR (paper Fig. 8 prompt), answered as written",
            task="no_ir",
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "searchain-no-verify",
            "searchain",
            "SearChain without verification: IR completes unsolved queries, corrects nothing",
            {"verify": False},
            k_field=None,
        ),
        Method(
            "searchain-no-complete",
            "searchain",
            "SearChain without completion: IR corrects answers, the LLM answers unsolved queries",
            {"complete": False},
            k_field=None,
        ),
    )
}


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose one of {', '.join(METHODS)}") from None
