"""The SearChain graph: Receive | Edit → GenerateCoQ → TraverseNodes → Verify | Complete → Trace.

Edges follow Algorithm 1 of Xu et al. (WWW 2024): an unsolved node is completed, an answered node
verified; a correction or completion ends the round and the LLM re-plans; a chain that passes
entirely, or the ``r_max`` budget, leads to Trace. Receive takes the question (from ``question``
or the person's last message); Trace's answer ends the person's conversation turn.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer

from searchain.context import MAX_CHAIN_NODES, MAX_ROUNDS, Context, context_of
from searchain.graph.finish import finish
from searchain.nodes.chat.receive import receive
from searchain.nodes.searchain.complete import complete
from searchain.nodes.searchain.edit import edit, route_start
from searchain.nodes.searchain.generate_coq import generate_coq
from searchain.nodes.searchain.trace import trace
from searchain.nodes.searchain.traverse import route_traverse, traverse_nodes
from searchain.nodes.searchain.verify import route_verify, verify
from searchain.state import OutputState, SearchainInput, State

# Every loop is bounded by counters in state (rounds ≤ r_max, the cursor moves forward through a
# chain of at most max_chain_nodes), so the run has at most this many steps; LangGraph's recursion
# limit is set to it and can never cut a legitimate run short.
STEP_BOUND = MAX_ROUNDS * (2 * MAX_CHAIN_NODES + 2) + 4  # + 1: an edit; + 1: receive


def route_generate(state: State, runtime: Runtime[Context]) -> Literal["traverse_nodes", "trace"]:
    """A fresh chain is traversed; a spent budget, an empty reply or ``no_ir`` goes to Trace.

    A task without IR (``no_ir``, paper Fig. 8) answers from its one chain as written.
    """
    interactive = context_of(runtime, state.settings).task_prompt(state.task).interactive
    return "trace" if state.stop_reason or not interactive else "traverse_nodes"


def build_graph(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Compile the SearChain graph, optionally with a checkpointer for resumable threads."""
    builder = StateGraph(
        State, context_schema=Context, input_schema=SearchainInput, output_schema=OutputState
    )
    builder.add_node("receive", receive)
    builder.add_node("edit", edit)
    builder.add_node("generate_coq", generate_coq)
    builder.add_node("traverse_nodes", traverse_nodes)
    builder.add_node("verify", verify)
    builder.add_node("complete", complete)
    builder.add_node("trace", trace)
    builder.add_conditional_edges(START, route_start)
    builder.add_edge("receive", "generate_coq")
    builder.add_edge("edit", "generate_coq")
    builder.add_conditional_edges("generate_coq", route_generate)
    builder.add_conditional_edges("traverse_nodes", route_traverse)
    builder.add_conditional_edges("verify", route_verify)
    builder.add_edge("complete", "generate_coq")
    builder.add_edge("trace", END)
    compiled = builder.compile(checkpointer=checkpointer, name="SearChain")
    return finish(compiled, STEP_BOUND)


graph = build_graph()
"""The graph LangGraph Studio and ``langgraph dev`` serve; the server supplies the checkpointer."""
