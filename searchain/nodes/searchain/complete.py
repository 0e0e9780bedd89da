"""Complete: IR answers a query the LLM marked ``[Unsolved Query]``."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from searchain.context import Context, context_of, context_verifier
from searchain.conversation import progress, prompt_turn
from searchain.events import emit
from searchain.prompts import feedback_template, render
from searchain.state import State, accept, verdict


def complete(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept the reader's answer for the unsolved node and ask the LLM to continue from it.

    Completion does not wait for a confident reader: the LLM has said it does not know, so the
    passage is the best knowledge available (the paper feeds it back unconditionally). The
    completed step is weighed against its passage like any other (an LLM reader's span can be
    made up). With ``complete`` off (the ablation), when retrieval found no passage, or when the
    reader found no answer in it (a counted ``no_reader_answer``), the LLM is told to answer the
    query itself, and the node stays off the path: the re-planned chain asks it again, with the
    LLM's own answer, to be verified — so Table 2 never counts it as IR knowledge.
    """
    node = state.current
    assert node is not None  # route_traverse only sends a node here
    ctx = context_of(runtime, state.settings)
    answer = node.reader_answer.strip()
    if not ctx.complete or node.passage is None or not answer:
        if not ctx.complete:
            template, event = "answer_yourself", "completion_skipped"
        elif node.passage is None:
            template, event = "complete_no_reference", "completion_found_nothing"
        else:
            template, event = "complete_no_answer", "completion_found_nothing"
        feedback = render(feedback_template(template), query=node.query, question=state.question)
        emit(runtime, event, node=node.id)
        unread = ["no_reader_answer"] if template == "complete_no_answer" else []
        return {
            "llm_messages": [prompt_turn(feedback)],
            "format_failures": state.format_failures + unread,
            **progress(
                state,
                f"{node.query} — the model did not know, and the search found no answer: the "
                "model is asked to answer it itself",
            ),
        }
    feedback = render(
        feedback_template("complete"),
        query=node.query,
        answer=answer,
        question=state.question,
        reference=node.passage.as_reference(),
    )
    long_form = ctx.task_prompt(state.task).long_form
    support = verdict(node, answer, context_verifier(ctx), long_form=long_form, alpha=ctx.alpha)
    emit(runtime, "node_completed", node=node.id, ir=answer)
    step = len(state.path) + 1
    return {
        "nodes": state.with_node(accept(node, "completed", answer, step, support)),
        "llm_messages": [prompt_turn(feedback)],
        **progress(
            state,
            f"Step {step} · {node.query} — the model did not know; *{node.passage.title}* says "
            f"**{answer}**: completed, the model re-plans",
        ),
    }
