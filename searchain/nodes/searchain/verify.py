"""Verify: a confident reader that disagrees with the LLM corrects the node."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from searchain.chat_markdown import VERDICTS
from searchain.context import Context, context_of, context_verifier
from searchain.conversation import progress, prompt_turn, refuse_legacy
from searchain.decisions import Decision, correction_request, read_decision, refused_request
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import State, accept, verdict
from searchain.support import is_consistent, taken_from
from searchain.tools.readers.calibration import run_theta


def await_decision(request: dict[str, Any]) -> Decision:
    """Pause until the person's resume value is a decision.

    A value that is not one is refused, never guessed: the node pauses again on the same
    request, its first line saying why (LangGraph replays the refused value to the first pause
    when the node re-runs, so the next value answers the next pause). Each turn of the loop
    waits on a person.
    """
    asking = request
    while True:
        try:
            return read_decision(interrupt(asking))
        except ValueError as refused:
            asking = refused_request(request, str(refused))


def verify(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept the node as the LLM answered it, or correct it and send the LLM feedback.

    A correction needs both a confident reader (confidence > θ) and an inconsistent LLM answer;
    an unsure reader never overrides the LLM, which is what keeps IR from misleading it. With
    ``approve_corrections`` the graph first pauses for a human (LangChain's human-in-the-loop
    request: approve, edit or reject); a rejected correction is kept on the node (``rejected``)
    and the LLM's answer stands; an edited one takes the person's answer, and the LLM re-plans
    from it as after ``searchain edit``. With ``verify`` off (the ablation) no
    node is ever corrected. A pre-release's thread resumed here is refused before it writes.
    """
    refuse_legacy(state)
    ctx = context_of(runtime, state.settings)
    node = state.current
    assert node is not None  # route_traverse only sends a node here
    theta = run_theta(ctx.reader, ctx.llm, ctx.theta)  # None: calibrated to correct nothing
    node = replace(node, theta=theta)  # kept on the node: why it was accepted, later
    passage = node.passage
    confident = theta is not None and node.confidence is not None and node.confidence > theta
    long_form = ctx.task_prompt(state.task).long_form
    # No passage, or (short answers) no span or one the passage does not contain (a reader that
    # made it up): the reader has no evidence against the LLM, whatever its confidence.
    no_evidence = passage is None or (
        not long_form and not taken_from(node.reader_answer, passage.as_reference())
    )
    consistent = no_evidence or is_consistent(
        node.llm_answer, node.reader_answer, passage.text, long_form=long_form, alpha=ctx.alpha
    )
    step = len(state.path) + 1
    verifier = context_verifier(ctx)
    support = verdict(node, node.llm_answer, verifier, long_form=long_form, alpha=ctx.alpha)
    correct = ctx.verify and confident and not consistent and passage is not None
    decision = Decision("approve")
    if correct and ctx.approve_corrections and passage is not None:
        request = correction_request(
            node.query,
            node.llm_answer,
            node.reader_answer,
            node.confidence,
            passage.title,
            passage.text,
        )
        decision = await_decision(request)
    heading = f"Step {step} · {node.query}"
    if correct and decision.kind == "reject":
        emit(runtime, "correction_rejected", node=node.id, ir=node.reader_answer)
        kept = replace(node, rejected=node.reader_answer)
        why = f" ({decision.text})" if decision.text else ""
        return {
            "nodes": state.with_node(accept(kept, "llm", node.llm_answer, step, support)),
            "cursor": state.cursor + 1,
            **progress(
                state,
                f"{heading} — you kept the model's **{node.llm_answer}** over the passage's "
                f"**{node.reader_answer}**{why}",
            ),
        }
    if correct and decision.kind == "edit":
        answer = decision.text
        emit(runtime, "node_edited", node=node.id, before=node.llm_answer, after=answer)
        edited = verdict(node, answer, verifier, long_form=long_form, alpha=ctx.alpha)
        feedback = render(
            feedback_template("edit"), query=node.query, answer=answer, question=state.question
        )
        return {
            "nodes": state.with_node(accept(node, "edited", answer, step, edited)),
            "llm_messages": [prompt_turn(feedback)],
            **progress(state, f"{heading} — your answer **{answer}**; the model re-plans"),
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
            "llm_messages": [prompt_turn(feedback)],
            **progress(
                state,
                f"{heading} — the model said **{node.llm_answer}**; *{passage.title}* says "
                f"**{ir}**: corrected, the model re-plans",
            ),
        }
    emit(runtime, "node_accepted", node=node.id, confident=confident, consistent=consistent)
    where = f"*{passage.title}* {VERDICTS[support]}" if passage is not None else "no passage found"
    return {
        "nodes": state.with_node(accept(node, "llm", node.llm_answer, step, support)),
        "cursor": state.cursor + 1,
        **progress(state, f"{heading} — **{node.llm_answer}**; {where}"),
    }


def route_verify(state: State) -> Literal["generate_coq", "traverse_nodes"]:
    """A correction or a person's edit ends the round (the LLM re-plans); else traversal goes on."""
    replanned = state.path[-1].source in ("corrected", "edited")
    return "generate_coq" if replanned else "traverse_nodes"
