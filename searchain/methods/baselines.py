"""SearChain's Table 1 baselines on graphs of their own, with IRCoT's few-shot demonstrations.

CoT-SC, Recite-and-answer, Self-Ask, Least-to-Most, Plan-and-Solve, ToolFormer, ReAct → CoT-SC,
Verify-and-Edit, Tree-of-Thought, and plain ReAct (:mod:`searchain.graph.baselines`). Auto-CoT
and DSP, which build demonstrations of their own, have modules of their own.
"""

from __future__ import annotations

from searchain.methods.ircot import few_shot
from searchain.methods.method import Method


def _graph(name: str) -> str:
    return f"searchain.graph.baselines:build_{name}"


COT_SC = Method(
    "cot-sc",
    _graph("cot_sc"),
    "CoT-SC: sampled chains of thought, majority vote; no retrieval",
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
RECITE_AND_ANSWER = Method(
    "recite-and-answer",
    _graph("recite_and_answer"),
    "Recite-and-answer: recite a passage from memory, answer from it (sc_samples paths)",
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
SELF_ASK_NO_IR = Method(
    "self-ask-no-ir",
    _graph("self_ask"),
    "Self-Ask without IR: the LLM answers its own follow-up questions",
    {"ircot_k": 0},
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
LEAST_TO_MOST = Method(
    "least-to-most",
    _graph("least_to_most"),
    "Least-to-Most: sub-questions first, then answered in order; no retrieval",
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
PLAN_AND_SOLVE_NO_IR = Method(
    "plan-and-solve-no-ir",
    _graph("plan_and_solve"),
    "Plan-and-Solve, zero-shot, no retrieval",
    {"ircot_k": 0},
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
TOOLFORMER = Method(
    "toolformer",
    _graph("toolformer"),
    "ToolFormer in context: the answer, with [WikiSearch(term)] calls to the retriever",
    k_field=None,
    prepare=few_shot,
)
SELF_ASK = Method(
    "self-ask",
    _graph("self_ask"),
    "Self-Ask: follow-up questions answered from retrieved paragraphs",
    prepare=few_shot,
)
PLAN_AND_SOLVE = Method(
    "plan-and-solve",
    _graph("plan_and_solve"),
    "Plan-and-Solve with the K (oner_k) paragraphs retrieved for the question",
    k_field="oner_k",
    prepare=few_shot,
)
REACT_COT_SC = Method(
    "react-cot-sc",
    _graph("react_cot_sc"),
    "ReAct, backing off to CoT-SC when it does not finish within ircot_max_steps",
    k_field=None,
    prepare=few_shot,
)
VERIFY_AND_EDIT = Method(
    "verify-and-edit",
    _graph("verify_and_edit"),
    "Verify-and-Edit: CoT-SC, unsure rationales checked and edited against retrieval",
    prepare=few_shot,
)
TOT = Method(
    "tot",
    _graph("tot"),
    "Tree-of-Thought with IR: breadth-first search over sentences, each one retrieving",
    prepare=few_shot,
)
REACT = Method(
    "react",
    _graph("react"),
    "ReAct: Thought/Action (Search, Lookup, Finish)/Observation",
    k_field=None,
    table1=False,
    prepare=few_shot,
)
