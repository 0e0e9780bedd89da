"""Methods by name: SearChain, its ablations, IRCoT, and the baselines both papers compare with.

A method is a graph plus context settings, so every method runs with the same LLM, retriever
and reader specs and is compared on equal terms. IRCoT's own baselines are its graph with
retrieval or interleaving switched off (NoR: Direct, CoT; OneR); SearChain's other Table 1
baselines (Auto-CoT, CoT-SC, Recite-and-answer, Self-Ask, Least-to-Most, Plan-and-Solve,
ToolFormer, ReAct → CoT-SC, Verify-and-Edit, Tree-of-Thought, DSP) have graphs of their own
(:mod:`searchain.graph.baselines`); the ablations are SearChain's graph with one kind of
interaction switched off, as in Xu et al.

Each method is declared in its family's module of this package, with what it prepares before
its first question (:class:`~searchain.methods.method.Method`), and listed once in
:data:`REGISTRY`: a new method is a module of its own and a line there.
"""

from __future__ import annotations

import importlib

from searchain.methods.method import Method, Setup

__all__ = ["METHODS", "REGISTRY", "Method", "Setup", "get_method"]

REGISTRY = (
    "searchain.methods.ircot:DIRECT",
    "searchain.methods.auto_cot:AUTO_COT",
    "searchain.methods.ircot:COT",
    "searchain.methods.baselines:COT_SC",
    "searchain.methods.baselines:RECITE_AND_ANSWER",
    "searchain.methods.baselines:SELF_ASK_NO_IR",
    "searchain.methods.baselines:LEAST_TO_MOST",
    "searchain.methods.baselines:PLAN_AND_SOLVE_NO_IR",
    "searchain.methods.searchain:SEARCHAIN_NO_IR",
    "searchain.methods.ircot:ONER",
    "searchain.methods.baselines:TOOLFORMER",
    "searchain.methods.baselines:SELF_ASK",
    "searchain.methods.baselines:PLAN_AND_SOLVE",
    "searchain.methods.baselines:REACT_COT_SC",
    "searchain.methods.baselines:VERIFY_AND_EDIT",
    "searchain.methods.baselines:TOT",
    "searchain.methods.dsp:DSP",
    "searchain.methods.searchain:SEARCHAIN",
    "searchain.methods.searchain:SEARCHAIN_NO_VERIFY",
    "searchain.methods.searchain:SEARCHAIN_NO_COMPLETE",
    "searchain.methods.ircot:IRCOT",
    "searchain.methods.baselines:REACT",
)
"""Every method, ``module:NAME``, in SearChain's Table 1 order (without IR, then with IR, then
its two ablations), then IRCoT and plain ReAct, which Table 1 does not have."""


def _declared(entry: str) -> Method:
    module, _, name = entry.partition(":")
    method = getattr(importlib.import_module(module), name)
    if not isinstance(method, Method):
        raise TypeError(f"{entry} in searchain.methods.REGISTRY is no Method")
    return method


def _by_name(methods: list[Method]) -> dict[str, Method]:
    """``methods`` by name; two of one name are refused (the later would hide the earlier)."""
    named: dict[str, Method] = {}
    for method in methods:
        if method.name in named:
            raise ValueError(f"two methods in searchain.methods.REGISTRY are named {method.name!r}")
        named[method.name] = method
    return named


METHODS = _by_name([_declared(entry) for entry in REGISTRY])
"""Every method by name, in :data:`REGISTRY`'s order."""


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name raises ``ValueError`` listing the known."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose one of {', '.join(METHODS)}") from None
