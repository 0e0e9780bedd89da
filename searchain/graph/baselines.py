"""The baselines of SearChain's Table 1 as LangGraph graphs over IRCoT's state.

Self-Ask and ReAct loop one node until it has the final answer (bounded by
``ircot_max_steps``); CoT-SC samples and votes; Verify-and-Edit is CoT-SC with an edit step when
the vote is unsure; Plan-and-Solve is one node. Each returns IRCoT's output, so ``searchain
eval`` scores them alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from searchain.context import Context
from searchain.graph.finish import finish
from searchain.nodes.baselines.cot_sc import cot_sc_sample
from searchain.nodes.baselines.plan_and_solve import plan_and_solve
from searchain.nodes.baselines.react import react_step, route_react
from searchain.nodes.baselines.self_ask import route_self_ask, self_ask_step
from searchain.nodes.baselines.verify_and_edit import route_consistency, verify_and_edit
from searchain.state import InputState, ReasoningOutput, ReasoningState

STEP_BOUND = 50 + 3
"""Loops are bounded by ``ircot_max_steps`` (≤ 50) plus the forced final step."""


def _builder() -> StateGraph:
    return StateGraph(
        ReasoningState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=ReasoningOutput,
    )


def _loop(name: str, node: Callable[..., Any], route: Callable[..., Any]) -> StateGraph:
    builder = _builder()
    builder.add_node(name, node)
    builder.add_edge(START, name)
    builder.add_conditional_edges(name, route)
    return builder


def _single(name: str, node: Callable[..., Any]) -> StateGraph:
    builder = _builder()
    builder.add_node(name, node)
    builder.add_edge(START, name)
    builder.add_edge(name, END)
    return builder


def _compile(builder: StateGraph, name: str, checkpointer: Checkpointer) -> CompiledStateGraph:
    return finish(builder.compile(checkpointer=checkpointer, name=name), STEP_BOUND)


def build_self_ask(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Self-Ask; with ``ircot_k = 0`` the LLM answers its own follow-ups (no IR)."""
    return _compile(_loop("self_ask_step", self_ask_step, route_self_ask), "Self-Ask", checkpointer)


def build_react(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """ReAct with Search/Lookup/Finish over the configured retriever."""
    return _compile(_loop("react_step", react_step, route_react), "ReAct", checkpointer)


def build_cot_sc(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """CoT-SC: ``sc_samples`` chains of thought and a majority vote."""
    return _compile(_single("cot_sc_sample", cot_sc_sample), "CoT-SC", checkpointer)


def build_verify_and_edit(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Verify-and-Edit: CoT-SC, and an edit against retrieval when the vote is unsure."""
    builder = _builder()
    builder.add_node("cot_sc_sample", cot_sc_sample)
    builder.add_node("verify_and_edit", verify_and_edit)
    builder.add_edge(START, "cot_sc_sample")
    builder.add_conditional_edges("cot_sc_sample", route_consistency)
    builder.add_edge("verify_and_edit", END)
    return _compile(builder, "Verify-and-Edit", checkpointer)


def build_plan_and_solve(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Plan-and-Solve; with IR when ``ircot_k`` > 0 (``oner_k`` paragraphs for the question)."""
    builder = _single("plan_and_solve", plan_and_solve)
    return _compile(builder, "Plan-and-Solve", checkpointer)


BUILDERS = {
    "self_ask": build_self_ask,
    "react": build_react,
    "cot_sc": build_cot_sc,
    "verify_and_edit": build_verify_and_edit,
    "plan_and_solve": build_plan_and_solve,
}
"""Graph builders by the name :class:`searchain.methods.Method` uses."""
