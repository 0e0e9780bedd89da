"""TraverseNodes: walk the current chain, retrieve and read the next node not processed yet."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.state import State, accept
from searchain.tools.resolve import context_retriever, resolve_reader


def traverse_nodes(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Move the cursor to the next unprocessed node and attach its top-1 passage and reading.

    Nodes that repeat a query already processed in an earlier round (GenerateCoQ mapped them to
    that node) are skipped, so IR is never asked the same thing twice; nodes answered in an
    earlier question of the thread are accepted again as they were, without searching.
    """
    chain = state.branches[-1].nodes
    nodes = list(state.nodes)
    cursor = state.cursor
    step = len(state.path)
    while cursor < len(chain) and (
        nodes[chain[cursor]].step is not None or nodes[chain[cursor]].reused
    ):
        node = nodes[chain[cursor]]
        if node.step is None and node.source is not None:  # reused from an earlier question
            step += 1
            nodes[node.id] = accept(node, node.source, node.answer, step)
            emit(runtime, "node_reused", node=node.id, query=node.query, answer=node.answer)
        cursor += 1
    if cursor == len(chain):
        return {"cursor": cursor, "nodes": nodes}
    ctx = context_of(runtime, state.settings)
    node = nodes[chain[cursor]]
    retriever = context_retriever(ctx)
    passages = retriever.search(node.query, k=1)
    if not passages:
        emit(runtime, "node_retrieved", node=node.id, query=node.query, passage=None)
        return {"cursor": cursor, "nodes": nodes}
    passage = passages[0]
    reading = resolve_reader(ctx.reader, ctx.llm).read(node.query, [passage])[0]
    emit(
        runtime,
        "node_retrieved",
        node=node.id,
        query=node.query,
        passage=passage.id,
        reader_answer=reading.answer,
        confidence=reading.confidence,
    )
    nodes[node.id] = replace(
        node, passage=passage, reader_answer=reading.answer, confidence=reading.confidence
    )
    return {"cursor": cursor, "nodes": nodes}


def route_traverse(state: State) -> Literal["verify", "complete", "trace"]:
    """Unsolved nodes are completed, answered ones verified; an exhausted chain is traced."""
    node = state.current
    if node is None:
        return "trace"
    return "complete" if node.unsolved else "verify"
