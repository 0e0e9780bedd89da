"""The baselines of SearChain's Table 1 as LangGraph graphs over IRCoT's state.

Self-Ask, ReAct, ToolFormer and Tree-of-Thought loop one node until it has the final answer
(bounded by ``ircot_max_steps``); ReAct → CoT-SC hands over to CoT-SC at that bound instead of
forcing an answer; CoT-SC and Recite-and-answer sample and vote; Verify-and-Edit is CoT-SC with
an edit step when the vote is unsure; Plan-and-Solve, Auto-CoT, Least-to-Most and DSP are one
node each (their calls bounded inside). Each returns IRCoT's output, so ``searchain eval``
scores them alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from searchain.context import Context
from searchain.graph.finish import finish
from searchain.nodes.baselines.auto_cot import auto_cot
from searchain.nodes.baselines.cot_sc import cot_sc_sample
from searchain.nodes.baselines.dsp import dsp
from searchain.nodes.baselines.least_to_most import least_to_most
from searchain.nodes.baselines.plan_and_solve import plan_and_solve
from searchain.nodes.baselines.react import react_step, route_react, route_react_or_back_off
from searchain.nodes.baselines.recite_and_answer import recite_and_answer
from searchain.nodes.baselines.self_ask import route_self_ask, self_ask_step
from searchain.nodes.baselines.toolformer import route_toolformer, toolformer_step
from searchain.nodes.baselines.tot import route_tot, tot_step
from searchain.nodes.baselines.verify_and_edit import route_consistency, verify_and_edit
from searchain.nodes.chat.receive import receive
from searchain.nodes.chat.reply import reply
from searchain.state import InputState, ReasoningOutput, ReasoningState

STEP_BOUND = 50 + 3 + 2
"""Loops are bounded by ``ircot_max_steps`` (≤ 50) plus the forced final step; + receive, reply."""


def _builder() -> StateGraph:
    """A graph that receives the question and replies to it; its method goes between."""
    builder = StateGraph(
        ReasoningState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=ReasoningOutput,
    )
    builder.add_node("receive", receive)
    builder.add_node("reply", reply)
    builder.add_edge(START, "receive")
    builder.add_edge("reply", END)
    return builder


def _loop(name: str, node: Callable[..., Any], route: Callable[..., Any]) -> StateGraph:
    builder = _builder()
    builder.add_node(name, node)
    builder.add_edge("receive", name)
    builder.add_conditional_edges(name, route)
    return builder


def _single(name: str, node: Callable[..., Any]) -> StateGraph:
    builder = _builder()
    builder.add_node(name, node)
    builder.add_edge("receive", name)
    builder.add_edge(name, "reply")
    return builder


def _then(
    first: tuple[str, Callable[..., Any]],
    route: Callable[..., Any],
    then: tuple[str, Callable[..., Any]],
) -> StateGraph:
    """``first``, routed by ``route`` (to itself, to the reply, or on to ``then``); then reply."""
    builder = _builder()
    builder.add_node(*first)
    builder.add_node(*then)
    builder.add_edge("receive", first[0])
    builder.add_conditional_edges(first[0], route)
    builder.add_edge(then[0], "reply")
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
    builder = _then(
        ("cot_sc_sample", cot_sc_sample), route_consistency, ("verify_and_edit", verify_and_edit)
    )
    return _compile(builder, "Verify-and-Edit", checkpointer)


def build_plan_and_solve(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Plan-and-Solve; with IR when ``ircot_k`` > 0 (``oner_k`` paragraphs for the question)."""
    builder = _single("plan_and_solve", plan_and_solve)
    return _compile(builder, "Plan-and-Solve", checkpointer)


def build_auto_cot(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Auto-CoT: Zero-Shot-CoT after the ``auto_cot_demos`` demonstrations."""
    return _compile(_single("auto_cot", auto_cot), "Auto-CoT", checkpointer)


def build_recite_and_answer(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Recite-and-answer: ``sc_samples`` recitations from memory, each answered, a vote."""
    builder = _single("recite_and_answer", recite_and_answer)
    return _compile(builder, "Recite-and-answer", checkpointer)


def build_least_to_most(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Least-to-Most: decompose, then answer the sub-questions and the question in order."""
    return _compile(_single("least_to_most", least_to_most), "Least-to-Most", checkpointer)


def build_toolformer(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """ToolFormer in context: the answer with ``[WikiSearch(term)]`` calls, each searched."""
    builder = _loop("toolformer_step", toolformer_step, route_toolformer)
    return _compile(builder, "ToolFormer", checkpointer)


def build_react_cot_sc(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """ReAct → CoT-SC: ReAct, and CoT-SC when it has not finished within the step bound."""
    builder = _then(
        ("react_step", react_step), route_react_or_back_off, ("cot_sc_sample", cot_sc_sample)
    )
    return _compile(builder, "ReAct → CoT-SC", checkpointer)


def build_tot(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Tree-of-Thought with IR: breadth-first search over reasoning sentences."""
    return _compile(_loop("tot_step", tot_step, route_tot), "Tree-of-Thought", checkpointer)


def build_dsp(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """DSP's multi-hop program: two search hops, then a chain-of-thought answer."""
    return _compile(_single("dsp", dsp), "DSP", checkpointer)
