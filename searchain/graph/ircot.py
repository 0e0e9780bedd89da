"""The IRCoT graph (Trivedi et al., ACL 2023): retrieve ⇄ reason until "answer is", then answer.

Receive takes the question (from ``question`` or the person's last message) and Reply adds the
answer to the person's conversation.

The same graph runs IRCoT's baselines: with ``ircot_k = 0`` nothing is retrieved and the LLM answers
at once (Direct or CoT, "NoR"); with ``ircot_max_steps = 0`` it answers after retrieving once
with the question ("OneR").
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from searchain.context import Context
from searchain.graph.finish import finish
from searchain.nodes.chat.receive import receive
from searchain.nodes.chat.reply import reply
from searchain.nodes.ircot.answer import ircot_answer
from searchain.nodes.ircot.reason import ircot_reason, route_reason
from searchain.nodes.ircot.retrieve import ircot_retrieve, route_retrieve, route_start
from searchain.state import InputState, ReasoningOutput, ReasoningState

# Reasoning steps are bounded by ircot_max_steps (≤ 50): two graph steps each, plus the answer,
# receive and reply.
STEP_BOUND = 2 * 50 + 5


def build_graph(checkpointer: Checkpointer = None) -> CompiledStateGraph:
    """Compile the IRCoT graph, optionally with a checkpointer."""
    builder = StateGraph(
        ReasoningState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=ReasoningOutput,
    )
    builder.add_node("receive", receive)
    builder.add_node("ircot_retrieve", ircot_retrieve)
    builder.add_node("ircot_reason", ircot_reason)
    builder.add_node("ircot_answer", ircot_answer)
    builder.add_node("reply", reply)
    builder.add_edge(START, "receive")
    builder.add_conditional_edges("receive", route_start)
    builder.add_conditional_edges("ircot_retrieve", route_retrieve)
    builder.add_conditional_edges("ircot_reason", route_reason)
    builder.add_edge("ircot_answer", "reply")
    builder.add_edge("reply", END)
    compiled = builder.compile(checkpointer=checkpointer, name="IRCoT")
    return finish(compiled, STEP_BOUND)


graph = build_graph()
"""The graph `langgraph dev` serves as "ircot"."""
