"""Verify: a confident reader that disagrees with the LLM corrects the node."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from searchain.context import Context, context_of, context_verifier
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import State, accept, verdict
from searchain.text import is_consistent, occurs_in
from searchain.tools.readers.resolve import resolve_reader


def verify(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept the node as the LLM answered it, or correct it and send the LLM feedback.

    A correction needs both a confident reader (confidence > θ) and an inconsistent LLM answer;
    an unsure reader never overrides the LLM, which is what keeps IR from misleading it. With
    ``approve_corrections`` the graph first pauses for a human; a rejected correction is kept on
    the node (``rejected``) and the LLM's answer stands. With ``verify`` off (the ablation) no
    node is ever corrected.
    """
    ctx = context_of(runtime, state.settings)
    node = state.current
    assert node is not None  # route_traverse only sends a node here
    theta = ctx.theta if ctx.theta is not None else resolve_reader(ctx.reader, ctx.llm).threshold
    node = replace(node, theta=theta)  # kept on the node: why it was accepted, later
    passage = node.passage
    confident = node.confidence is not None and node.confidence > theta
    long_form = ctx.task_prompt(state.task).long_form
    # No passage, or (short answers) no span or one the passage does not contain (a reader that
    # made it up): the reader has no evidence against the LLM, whatever its confidence.
    no_evidence = passage is None or (
        not long_form and not occurs_in(node.reader_answer, passage.as_reference())
    )
    consistent = no_evidence or is_consistent(
        node.llm_answer, node.reader_answer, passage.text, long_form=long_form, alpha=ctx.alpha
    )
    step = len(state.path) + 1
    verifier = context_verifier(ctx)
    support = verdict(node, node.llm_answer, verifier, long_form=long_form, alpha=ctx.alpha)
    correct = ctx.verify and confident and not consistent and passage is not None
    if correct and ctx.approve_corrections:
        decision = interrupt(
            {
                "kind": "approve_correction",
                "node": node.id,
                "query": node.query,
                "llm_answer": node.llm_answer,
                "reader_answer": node.reader_answer,
                "confidence": node.confidence,
                "passage": {"id": passage.id, "title": passage.title, "text": passage.text},
            }
        )
        if not approved(decision):
            emit(runtime, "correction_rejected", node=node.id, ir=node.reader_answer)
            kept = replace(node, rejected=node.reader_answer)
            return {
                "nodes": state.with_node(accept(kept, "llm", node.llm_answer, step, support)),
                "cursor": state.cursor + 1,
            }
    if correct and passage is not None:
        emit(runtime, "node_corrected", node=node.id, llm=node.llm_answer, ir=node.reader_answer)
        feedback = render(
            feedback_template("verify"),
            query=node.query,
            answer=node.reader_answer,
            question=state.question,
            reference=passage.as_reference(),
        )
        ir = node.reader_answer
        corrected = verdict(node, ir, verifier, long_form=long_form, alpha=ctx.alpha)
        return {
            "nodes": state.with_node(accept(node, "corrected", ir, step, corrected)),
            "messages": [HumanMessage(feedback)],
        }
    emit(runtime, "node_accepted", node=node.id, confident=confident, consistent=consistent)
    return {
        "nodes": state.with_node(accept(node, "llm", node.llm_answer, step, support)),
        "cursor": state.cursor + 1,
    }


def approved(decision: Any) -> bool:
    """Read a human's resume value: ``True``, ``"approve"``/``"yes"``, or ``{"approve": True}``."""
    if isinstance(decision, dict):
        decision = decision.get("approve")
    if isinstance(decision, str):
        return decision.strip().lower() in ("approve", "approved", "yes", "y", "true")
    return decision is True


def route_verify(state: State) -> Literal["generate_coq", "traverse_nodes"]:
    """A correction ends the round (the LLM re-plans); an accepted node lets traversal go on."""
    return "generate_coq" if state.path[-1].source == "corrected" else "traverse_nodes"
