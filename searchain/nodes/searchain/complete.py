"""Complete: IR answers a query the LLM marked ``[Unsolved Query]``."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import State, accept


def complete(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept the reader's answer for the unsolved node and ask the LLM to continue from it.

    Completion does not wait for a confident reader: the LLM has said it does not know, so the
    passage is the best knowledge available (the paper feeds it back unconditionally). With
    ``complete`` off (the ablation), or when retrieval found no passage at all, the LLM is told to
    answer the query itself, and the node stays off the path: the re-planned chain asks it again,
    with the LLM's own answer, to be verified — so Table 2 never counts it as IR knowledge.
    """
    node = state.current
    assert node is not None  # route_traverse only sends a node here
    enabled = context_of(runtime, state.settings).complete
    if not enabled or node.passage is None:
        # No completion (the ablation), or IR found nothing to complete the node with: it stays
        # off the path and the LLM answers it itself in the re-planned chain (a new node that
        # Verify accepts as the LLM's).
        template = "complete_no_reference" if enabled else "answer_yourself"
        feedback = render(feedback_template(template), query=node.query, question=state.question)
        emit(runtime, "completion_found_nothing" if enabled else "completion_skipped", node=node.id)
        return {"messages": [HumanMessage(feedback)]}
    feedback = render(
        feedback_template("complete"),
        query=node.query,
        answer=node.reader_answer,
        question=state.question,
        reference=node.passage.as_reference(),
    )
    emit(runtime, "node_completed", node=node.id, ir=node.reader_answer)
    return {
        "nodes": state.with_node(
            accept(node, "completed", node.reader_answer, len(state.path) + 1, "stated")
        ),
        "messages": [HumanMessage(feedback)],
    }
