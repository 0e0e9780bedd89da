"""TraverseNodes: walk the current chain; retrieve and read its nodes (all at once by default)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.searched import thread_retriever
from searchain.state import State, TreeNode
from searchain.tools.readers.batch import read_many
from searchain.tools.readers.resolve import resolve_reader
from searchain.tools.retrieval.batch import search_many
from searchain.types import Retriever


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
            nodes[node.id] = replace(node, step=step)  # as it was, verdict included
            emit(runtime, "node_reused", node=node.id, query=node.query, answer=node.answer)
        cursor += 1
    # Channels a step does not write are not checkpointed again: ``nodes`` only when it changed.
    update: dict[str, Any] = {"cursor": cursor}
    if nodes != state.nodes:
        update["nodes"] = nodes
    if cursor == len(chain):
        return update
    node = nodes[chain[cursor]]
    if not node.read:
        ctx = context_of(runtime, state.settings)
        ahead = [nodes[i] for i in chain[cursor + 1 :]] if ctx.parallel_traversal else []
        todo = [node, *(n for n in ahead if n.step is None and not n.reused and not n.read)]
        for done in read_nodes(todo, thread_retriever(ctx, state.uploads), ctx, state.nodes):
            nodes[done.id] = done
        node = nodes[node.id]
        update["nodes"] = nodes
    emit(
        runtime,
        "node_retrieved",
        node=node.id,
        query=node.query,
        passage=node.passage.id if node.passage else None,
        where=node.passage.source.cite() if node.passage and node.passage.source else None,
        reader_answer=node.reader_answer,
        confidence=node.confidence,
    )
    return update


def read_nodes(
    todo: list[TreeNode], retriever: Retriever, ctx: Context, tree: list[TreeNode]
) -> list[TreeNode]:
    """Retrieve the top-1 passage of every node in one batch, then read them in one batch.

    All of a chain's queries are known once it is generated, so its nodes need not wait for each
    other's verdicts: the walk then uses the readings in order, exactly as if it had fetched them
    one at a time (Algorithm 1 is unchanged), and only what lies past a correction goes unused.
    A query read before on the ``tree`` (past an earlier correction) takes that reading again
    instead of searching twice. ``retriever`` is where the thread searches (its files, the index).
    """
    earlier = {n.query: n for n in tree if n.read}
    read = {
        n.id: replace(n, read=True, **earlier[n.query].reading())
        for n in todo
        if n.query in earlier
    }
    todo = [n for n in todo if n.id not in read]
    found = search_many(retriever, [n.query for n in todo], k=1)
    hits = [(n, passages[0]) for n, passages in zip(todo, found, strict=True) if passages]
    readings = read_many(
        resolve_reader(ctx.reader, ctx.llm), [n.query for n, _ in hits], [p for _, p in hits]
    )
    read.update({n.id: replace(n, read=True) for n in todo})
    for (n, passage), reading in zip(hits, readings, strict=True):
        read[n.id] = replace(
            n,
            read=True,
            passage=passage,
            reader_answer=reading.answer,
            confidence=reading.confidence,
            calibrated=reading.calibrated,
        )
    return list(read.values())


def route_traverse(state: State) -> Literal["verify", "complete", "trace"]:
    """Unsolved nodes are completed, answered ones verified; an exhausted chain is traced."""
    node = state.current
    if node is None:
        return "trace"
    return "complete" if node.unsolved else "verify"
