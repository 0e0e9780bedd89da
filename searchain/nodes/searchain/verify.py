"""Verify: a confident reader that disagrees with the LLM corrects the node."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from searchain.chat_markdown import VERDICTS
from searchain.context import Context, context_of, context_verifier
from searchain.conversation import progress, prompt_turn, refuse_legacy
from searchain.decisions import Decision, correction_request, read_decision, refused_request
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import State, TreeNode, accept, verdict
from searchain.support import Support, is_consistent, taken_from
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
    long_form = ctx.task_prompt(state.task).long_form
    confident = theta is not None and node.confidence is not None and node.confidence > theta
    consistent = _consistent(node, long_form, ctx.alpha)
    verifier = context_verifier(ctx)
    outcome = Outcome(state, runtime, node, len(state.path) + 1)

    def judged(answer: str) -> Support:
        return verdict(node, answer, verifier, long_form=long_form, alpha=ctx.alpha)

    if not (ctx.verify and confident and not consistent) or node.passage is None:
        emit(runtime, "node_accepted", node=node.id, confident=confident, consistent=consistent)
        return outcome.accepted(judged(node.llm_answer))
    decision = Decision("approve")
    if ctx.approve_corrections:
        passage = node.passage
        decision = await_decision(
            correction_request(
                node.query,
                node.llm_answer,
                node.reader_answer,
                node.confidence,
                passage.title,
                passage.text,
            )
        )
    if decision.kind == "reject":
        return outcome.rejected(judged(node.llm_answer), decision.text)
    if decision.kind == "edit":
        return outcome.edited(decision.text, judged(decision.text))
    return outcome.corrected(judged(node.reader_answer))


def _consistent(node: TreeNode, long_form: bool, alpha: float) -> bool:
    """Whether the reader's answer leaves the LLM's standing (or has no evidence against it).

    No passage, or (short answers) no span or one the passage does not contain (a reader that
    made it up): the reader has no evidence against the LLM, whatever its confidence.
    """
    passage = node.passage
    if passage is None or (
        not long_form and not taken_from(node.reader_answer, passage.as_reference())
    ):
        return True
    return is_consistent(
        node.llm_answer, node.reader_answer, passage.text, long_form=long_form, alpha=alpha
    )


@dataclass(frozen=True)
class Outcome:
    """The writes of each way a node verified at path step ``step`` can end."""

    state: State
    """The run's state before this node is settled."""
    runtime: Runtime[Context]
    """Where the outcome's event goes."""
    node: TreeNode
    """The node being verified, its θ set."""
    step: int
    """Its place in the reasoning path (1-based)."""

    @property
    def heading(self) -> str:
        """The progress line's start: the step and its query."""
        return f"Step {self.step} · {self.node.query}"

    def accepted(self, support: Support) -> dict[str, Any]:
        """The LLM's answer stands (no confident disagreement); traversal goes on."""
        node, passage = self.node, self.node.passage
        where = f"*{passage.title}* {VERDICTS[support]}" if passage else "no passage found"
        return {
            "nodes": self.state.with_node(accept(node, "llm", node.llm_answer, self.step, support)),
            "cursor": self.state.cursor + 1,
            **progress(self.state, f"{self.heading} — **{node.llm_answer}**; {where}"),
        }

    def rejected(self, support: Support, why: str) -> dict[str, Any]:
        """A person kept the LLM's answer over the correction, which the node keeps."""
        node = self.node
        emit(self.runtime, "correction_rejected", node=node.id, ir=node.reader_answer)
        kept = replace(node, rejected=node.reader_answer)
        said = f" ({why})" if why else ""
        return {
            "nodes": self.state.with_node(accept(kept, "llm", node.llm_answer, self.step, support)),
            "cursor": self.state.cursor + 1,
            **progress(
                self.state,
                f"{self.heading} — you kept the model's **{node.llm_answer}** over the passage's "
                f"**{node.reader_answer}**{said}",
            ),
        }

    def edited(self, answer: str, support: Support) -> dict[str, Any]:
        """A person gave the answer in place of the correction; the LLM re-plans from it."""
        node, state = self.node, self.state
        emit(self.runtime, "node_edited", node=node.id, before=node.llm_answer, after=answer)
        feedback = render(
            feedback_template("edit"), query=node.query, answer=answer, question=state.question
        )
        return {
            "nodes": state.with_node(accept(node, "edited", answer, self.step, support)),
            "llm_messages": [prompt_turn(feedback)],
            **progress(state, f"{self.heading} — your answer **{answer}**; the model re-plans"),
        }

    def corrected(self, support: Support) -> dict[str, Any]:
        """The reader's answer replaces the LLM's; the LLM re-plans after the feedback."""
        node, state, passage = self.node, self.state, self.node.passage
        assert passage is not None  # verify corrects only a node with a passage
        ir = node.reader_answer
        emit(self.runtime, "node_corrected", node=node.id, llm=node.llm_answer, ir=ir)
        feedback = render(
            feedback_template("verify"),
            query=node.query,
            answer=ir,
            question=state.question,
            reference=passage.as_reference(),
        )
        return {
            "nodes": state.with_node(accept(node, "corrected", ir, self.step, support)),
            "llm_messages": [prompt_turn(feedback)],
            **progress(
                state,
                f"{self.heading} — the model said **{node.llm_answer}**; *{passage.title}* says "
                f"**{ir}**: corrected, the model re-plans",
            ),
        }


def route_verify(state: State) -> Literal["generate_coq", "traverse_nodes"]:
    """A correction or a person's edit ends the round (the LLM re-plans); else traversal goes on."""
    replanned = state.path[-1].source in ("corrected", "edited")
    return "generate_coq" if replanned else "traverse_nodes"
