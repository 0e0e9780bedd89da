"""Methods by name: SearChain, its ablations, IRCoT, and the baselines both papers compare with.

A method is a graph plus context settings, so every method runs with the same LLM, retriever
and reader specs and is compared on equal terms. IRCoT's own baselines are its graph with
retrieval or interleaving switched off (NoR: Direct, CoT; OneR); SearChain's other Table 1
baselines (Auto-CoT, CoT-SC, Recite-and-answer, Self-Ask, Least-to-Most, Plan-and-Solve,
ToolFormer, ReAct → CoT-SC, Verify-and-Edit, Tree-of-Thought, DSP) have graphs of their own
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
        "searchain",
        "ircot",
        "self_ask",
        "react",
        "cot_sc",
        "plan_and_solve",
        "verify_and_edit",
        "auto_cot",
        "recite_and_answer",
        "least_to_most",
        "toolformer",
        "react_cot_sc",
        "tot",
        "dsp",
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
    table1: bool = True
    """Whether it is a row of SearChain's Table 1 (IRCoT and plain ReAct are not)."""

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
            "auto-cot",
            "auto_cot",
            "Auto-CoT: Zero-Shot-CoT after demonstrations clustered from the tuning questions",
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
            "cot-sc",
            "cot_sc",
            "CoT-SC: sampled chains of thought, majority vote; no retrieval",
            k_field=None,
            uses_ir=False,
        ),
        Method(
            "recite-and-answer",
            "recite_and_answer",
            "Recite-and-answer: recite a passage from memory, answer from it (sc_samples paths)",
            k_field=None,
            uses_ir=False,
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
            "least-to-most",
            "least_to_most",
            "Least-to-Most: sub-questions first, then answered in order; no retrieval",
            k_field=None,
            uses_ir=False,
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
            "searchain-no-ir",
            "searchain",
            "SearChain's chain without IR (paper Fig. 8 prompt), answered as written",
            task="no_ir",
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
        Method(
            "toolformer",
            "toolformer",
            "ToolFormer in context: the answer, with [WikiSearch(term)] calls to the retriever",
            k_field=None,
        ),
        Method(
            "self-ask",
            "self_ask",
            "Self-Ask: follow-up questions answered from retrieved paragraphs",
        ),
        Method(
            "plan-and-solve",
            "plan_and_solve",
            "Plan-and-Solve with the K (oner_k) paragraphs retrieved for the question",
            k_field="oner_k",
        ),
        Method(
            "react-cot-sc",
            "react_cot_sc",
            "ReAct, backing off to CoT-SC when it does not finish within ircot_max_steps",
            k_field=None,
        ),
        Method(
            "verify-and-edit",
            "verify_and_edit",
            "Verify-and-Edit: CoT-SC, unsure rationales checked and edited against retrieval",
        ),
        Method(
            "tot",
            "tot",
            "Tree-of-Thought with IR: breadth-first search over sentences, each one retrieving",
        ),
        Method(
            "dsp",
            "dsp",
            "DSP: two LLM-written search hops, then a chain-of-thought answer over the passages",
        ),
        Method(
            "searchain",
            "searchain",
            "SearChain: Chain-of-Query checked and completed by IR",
            k_field=None,
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
        Method(
            "ircot",
            "ircot",
            "IRCoT: retrieval interleaved with chain-of-thought sentences",
            table1=False,
        ),
        Method(
            "react",
            "react",
            "ReAct: Thought/Action (Search, Lookup, Finish)/Observation",
            k_field=None,
            table1=False,
        ),
    )
}
"""Every method by name, in SearChain's Table 1 order (without IR, then with IR, then its two
ablations), then IRCoT and plain ReAct, which Table 1 does not have."""


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose one of {', '.join(METHODS)}") from None
