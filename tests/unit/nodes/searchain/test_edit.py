"""A person corrects a step: the run re-plans from it exactly as after a Verify correction."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.nodes.searchain.edit import as_edit, check_edit
from searchain.state import Edit
from tests.conftest import ScriptedReplies, TableReader, TableRetriever
from tests.unit.nodes.searchain.test_graph import GOOD_CHAIN, Q1, Q2, Q3, TRACE, Q

CONFIG = {"configurable": {"thread_id": "edit"}}
REPLAN = f"""[Query 2]: {Q2}
[Answer 2]: Montreal.
[Query 3]: Where do greyhound buses in Montreal leave from?
[Answer 3]: Gare d'autocars de Montréal.
[Final Content]: So the final answer is Gare d'autocars de Montréal."""
MONTREAL_BUS = "Where do greyhound buses in Montreal leave from?"


@pytest.fixture
def finished(passages):
    """A thread whose question passed untouched: three LLM steps, traced."""
    retriever = TableRetriever({Q1: passages["spirit"], Q2: passages["drew"], Q3: passages["bus"]})
    reader = TableReader(
        {"p1": ("Kevin Drew", 3.0), "p2": ("Toronto", 3.0), "p3": ("Toronto Coach Terminal", 3.0)}
    )
    llm = ScriptedReplies(replies=[GOOD_CHAIN, TRACE])
    graph = build_graph(checkpointer=InMemorySaver())
    context = Context(llm=llm, retriever=retriever, reader=reader)
    out = graph.invoke({"question": Q}, CONFIG, context=context)
    assert [n.source for n in out["nodes"]] == ["llm"] * 3
    return graph, llm, retriever, context


def test_an_edit_re_plans_from_the_step_as_a_correction_would(finished):
    graph, llm, retriever, context = finished
    llm.replies += [REPLAN, "Drew [1] was born in Montreal [2]. So the final answer is the gare."]
    out = graph.invoke({"edit": {"node": 1, "answer": "Montreal"}}, CONFIG, context=context)
    nodes = out["nodes"]
    edited = nodes[1]
    assert (edited.source, edited.answer, edited.step) == ("edited", "Montreal", 2)
    assert edited.support == "unstated"  # its passage says Toronto: the verdict stays honest
    assert edited.llm_answer == "Toronto."  # what the LLM had said is kept
    # The step after it left the path; the new round branches from the edited step.
    assert (nodes[2].query, nodes[2].step, nodes[2].source) == (Q3, None, None)
    branch = out["branches"][-1]
    assert branch.root == 1 and branch.nodes == [1, 3] and out["rounds"] == 2
    assert (nodes[3].query, nodes[3].parent, nodes[3].step) == (MONTREAL_BUS, 1, 3)
    # The person's answer went back in the same conversation, inside the delimiters.
    feedback = llm.calls[2][-1].text
    assert feedback.startswith(f'A person checked "{Q2}": its answer should be <answer>Montreal')
    assert len(llm.calls[2]) == 3  # prompt, first chain, feedback
    assert out["answer"] == "the gare" and [r.n for r in out["references"]] == [1, 2]
    assert retriever.queries == [Q1, Q2, Q3, MONTREAL_BUS]  # only the new query was searched
    # In the person's conversation: the question, its answer, the edit, the re-planned answer.
    said = [(m.type, m.text) for m in out["messages"]]
    assert [kind for kind, _ in said] == ["human", "ai", "human", "ai"]
    assert said[2][1] == f"{Q2} Montreal" and said[3][1].startswith("**Answer:** the gare")
    # A follow-up question afterwards is a new turn, no edit lingering.
    llm.replies += [f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew.", "Drew [1]."]
    after = graph.invoke({"question": "Who made Spirit If...?"}, CONFIG, context=context)
    assert after["history"][0].steps[1].source == "edited" and after["rounds"] == 1


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"node": 7, "answer": "x"}, "node 7 is not a step of the reasoning path: edit 0, 1, 2"),
        ({"node": 1, "answer": "  "}, "the edited answer is empty"),
        ({"node": "1", "answer": "x"}, "the node to edit is a node id (0, 1, 2), not '1'"),
        ({"node": 1}, 'an edit is {"node": NODE_ID, "answer": TEXT}'),
    ],
)
def test_a_bad_edit_is_refused_in_one_line_and_changes_nothing(finished, request_, message):
    graph, _, _, context = finished
    before = graph.get_state(CONFIG).values
    with pytest.raises(ValueError) as error:
        graph.invoke({"edit": request_}, CONFIG, context=context)
    assert message in str(error.value)
    assert graph.get_state(CONFIG).values["nodes"] == before["nodes"]
    # The refused edit does not linger: the next edit runs as if it had never been asked.
    graph, llm, _, context = finished
    llm.replies += [REPLAN, "Drew [1]. So the final answer is the gare."]
    out = graph.invoke({"edit": {"node": 1, "answer": "Montreal"}}, CONFIG, context=context)
    assert out["nodes"][1].source == "edited" and out["answer"] == "the gare"


def test_check_edit_needs_a_step():
    with pytest.raises(ValueError, match="no reasoning step yet"):
        check_edit([], Edit(0, "x"))
    assert as_edit(Edit(1, "a")) == as_edit({"node": 1, "answer": "a"})
