"""Methods by name: SearChain, its ablations, IRCoT and IRCoT's baselines.

A method is one of the two graphs plus context settings, so every method runs with the same LLM,
retriever and reader specs and is compared on equal terms. The baselines are IRCoT's graph with
retrieval or interleaving switched off, as in Trivedi et al. (NoR, OneR); the ablations are
SearChain's graph with one kind of interaction switched off, as in Xu et al.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from searchain.context import Context
from searchain.tools.cache import load_once


@dataclass(frozen=True)
class Method:
    """A runnable method: which graph, and which context settings it overrides."""

    name: str
    """The name used by ``searchain eval --method`` and in results files."""
    graph: Literal["searchain", "ircot"]
    """The graph it runs."""
    description: str
    """One line for ``--help``, docs and reports."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Context fields it sets, over the caller's."""
    task: str | None = None
    """Prompt family forced for every question (``no_ir``); ``None`` keeps the question's own."""

    def context(self, **fields: Any) -> Context:
        """The run's context: the caller's ``fields`` with this method's settings on top."""
        return Context(**{**fields, **self.settings})

    def compiled(self) -> Any:
        """The method's compiled graph, built once per process."""
        if self.graph == "ircot":
            from searchain.graph.ircot import build_graph
        else:
            from searchain.graph.searchain import build_graph
        return load_once(("graph", self.graph), build_graph)


METHODS = {
    m.name: m
    for m in (
        Method(
            "direct",
            "ircot",
            "the LLM answers at once, no retrieval",
            {"ircot_k": 0, "ircot_answer": "direct"},
        ),
        Method(
            "cot",
            "ircot",
            "chain-of-thought, then the answer; no retrieval",
            {"ircot_k": 0, "ircot_answer": "cot"},
        ),
        Method(
            "oner",
            "ircot",
            "one retrieval of K paragraphs with the question, then the answer",
            {"ircot_max_steps": 0},
        ),
        Method("ircot", "ircot", "IRCoT: retrieval interleaved with chain-of-thought sentences"),
        Method("searchain", "searchain", "SearChain: Chain-of-Query checked and completed by IR"),
        Method(
            "searchain-no-ir",
            "searchain",
            "SearChain's chain without IR (paper Fig. 8 prompt), answered as written",
            task="no_ir",
        ),
        Method(
            "searchain-no-verify",
            "searchain",
            "SearChain without verification: IR completes unsolved queries, corrects nothing",
            {"verify": False},
        ),
        Method(
            "searchain-no-complete",
            "searchain",
            "SearChain without completion: IR corrects answers, the LLM answers unsolved queries",
            {"complete": False},
        ),
    )
}


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose one of {', '.join(METHODS)}") from None
