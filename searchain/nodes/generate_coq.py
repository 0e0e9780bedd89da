"""GenerateCoQ: the LLM plans (or re-plans) a whole Chain-of-Query."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.parsing import parse_chain
from searchain.prompts import render, task_prompt
from searchain.state import Branch, State, TreeNode
from searchain.tools.dedup import find_duplicate
from searchain.tools.llm import resolve_llm

# A chain ends where a model starts inventing the next few-shot example; stopping there saves
# most of a small model's generation time.
STOP = ["\n[Question]", "\n[Claim]"]


def generate_coq(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the LLM for a chain and add it to the Tree-of-Reasoning as a new branch.

    The first round sends the task's Chain-of-Query prompt; later rounds continue the same
    conversation after the feedback Verify or Complete appended. Once ``r_max`` chains have been
    generated the node stops reasoning instead of calling the LLM again.
    """
    ctx = context_of(runtime)
    if state.rounds >= ctx.r_max:
        return {"stop_reason": "max_rounds"}
    new_messages = [] if state.messages else [HumanMessage(_first_prompt(state, ctx))]
    emit(runtime, "round_started", round=state.rounds + 1)
    reply = resolve_llm(ctx.llm).invoke([*state.messages, *new_messages], stop=STOP)
    parsed = parse_chain(reply.text, max_nodes=ctx.max_chain_nodes)

    branch_id = len(state.branches)
    root = state.path[-1].id if state.path else None
    known = [(node.id, node.query) for node in state.nodes if node.source is not None]
    new_nodes: list[TreeNode] = []
    chain: list[int] = []
    parent = root
    threshold = ctx.dedup_threshold if ctx.semantic_dedup else None
    for item in parsed.nodes:
        node_id = find_duplicate(item.query, known, threshold=threshold)
        if node_id is None:
            node_id = len(state.nodes) + len(new_nodes)
            new_nodes.append(
                TreeNode(
                    id=node_id,
                    branch=branch_id,
                    parent=parent,
                    query=item.query,
                    llm_answer=item.answer,
                    unsolved=item.unsolved,
                )
            )
            known.append((node_id, item.query))
        chain.append(node_id)
        parent = node_id
    emit(runtime, "chain_generated", round=state.rounds + 1, nodes=len(chain), new=len(new_nodes))
    return {
        "messages": [*new_messages, AIMessage(reply.text)],
        "nodes": new_nodes,
        "branches": [Branch(branch_id, root, chain, parsed.final_content)],
        "rounds": state.rounds + 1,
        "cursor": 0,
        "stop_reason": "" if chain else "no_chain",
    }


def _first_prompt(state: State, ctx: Context) -> str:
    """The round-one prompt; rejects input that no prompt could make sense of."""
    question = " ".join(state.question.split())
    if not question:
        raise ValueError("the question is empty: pass a non-blank question")
    return render(task_prompt(state.task or ctx.task).template, question=question)
