"""Edit: a person's answer replaces a step's, and the LLM re-plans from it as after a correction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of, context_verifier
from searchain.conversation import new_reply_id, progress, prompt_turn, refuse_legacy
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import Edit, State, TreeNode, accept, reasoning_path, untraced, verdict
from searchain.text import clean_text


def as_edit(value: Edit | Mapping[str, Any]) -> Edit:
    """An :class:`Edit` from itself or from JSON (``{"node": 2, "answer": "Toronto"}``)."""
    if isinstance(value, Edit):
        return value
    if not isinstance(value, Mapping) or set(value) != {"node", "answer"}:
        raise ValueError('an edit is {"node": NODE_ID, "answer": TEXT}')
    return Edit(value["node"], value["answer"])


def check_edit(nodes: Sequence[TreeNode], edit: Edit) -> TreeNode:
    """The step ``edit`` names, or one line saying why it cannot be edited."""
    steps = reasoning_path(nodes)
    if not steps:
        raise ValueError("nothing to edit: the thread's question has no reasoning step yet")
    choices = ", ".join(str(n.id) for n in steps)
    if isinstance(edit.node, bool) or not isinstance(edit.node, int):
        raise ValueError(f"the node to edit is a node id ({choices}), not {edit.node!r}")
    if not isinstance(edit.answer, str) or not edit.answer.strip():
        raise ValueError("the edited answer is empty: give the step's right answer")
    node = next((n for n in steps if n.id == edit.node), None)
    if node is None:
        raise ValueError(f"node {edit.node} is not a step of the reasoning path: edit {choices}")
    return node


def route_start(state: State) -> Literal["edit", "receive"]:
    """A run given an edit applies it; any other run receives a question."""
    return "edit" if state.edit is not None else "receive"


def edit(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept the person's answer for the step as ``edited`` and feed it back to the LLM.

    Exactly as a Verify correction: the step takes the new answer (its verdict weighed against
    its passage, honestly), the answer goes back inside ``<answer>`` delimiters in the same
    conversation, and GenerateCoQ writes a new round that branches from this step. The steps
    after it leave the path (the new chain asks again what it still needs), and what Trace
    wrote is cleared until it traces again. A pre-release's thread is refused before it writes.
    """
    refuse_legacy(state)
    request = as_edit(state.edit)  # type: ignore[arg-type]  # route_start saw one
    node = check_edit(state.nodes, request)
    answer = clean_text(request.answer).strip()
    ctx = context_of(runtime, state.settings)
    long_form = ctx.task_prompt(state.task).long_form
    support = verdict(node, answer, context_verifier(ctx), long_form=long_form, alpha=ctx.alpha)
    step = node.step or 0  # check_edit returned a step of the path
    nodes = []
    for other in state.nodes:
        if other.id == node.id:
            other = accept(node, "edited", answer, step, support)
        elif other.step is not None and other.step > step:  # leaves the path
            other = replace(other, step=None, source=None, support=None)
        nodes.append(other)
    feedback = render(
        feedback_template("edit"), query=node.query, answer=answer, question=state.question_asked
    )
    emit(runtime, "node_edited", node=node.id, before=node.answer, after=answer)
    # In the person's conversation the edit is theirs to say, and gets a reply of its own.
    state = replace(state, reply_id=new_reply_id(), progress=[])
    said = progress(state, f"Step {step} · {node.query} — your answer **{answer}**; re-planning")
    if said:
        said["messages"] = [HumanMessage(f"{node.query} {answer}"), *said["messages"]]
    return {
        "reply_id": state.reply_id,
        "nodes": nodes,
        "llm_messages": [prompt_turn(feedback)],
        "stop_reason": "",
        **untraced(),
        **said,
    }
