"""Threads: follow-up questions, human approval of corrections, async entry points."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.tools.retrieval import embedded
from tests.conftest import ScriptedReplies, TableReader, TableRetriever

Q1 = "Where was Kevin Drew born?"
CHAIN = f"[Query 1]: {Q1}\n[Answer 1]: Montreal."


def config(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


FOLLOW = (
    f"[Query 1]: {Q1}\n[Answer 1]: Toronto.\n[Query 2]: Where do buses leave?\n"
    "[Answer 2]: Toronto Coach Terminal."
)
BUSES = "Buses [2]. So the final answer is Toronto Coach Terminal."


def follow_up(passages, first_chain: str, first_trace: str):
    """A question, then a follow-up whose chain repeats the first one's sub-query."""
    retriever = TableRetriever({Q1: passages["drew"], "Where do buses leave?": passages["bus"]})
    reader = TableReader({"p2": ("Toronto", 1.0), "p3": ("Toronto Coach Terminal", 1.0)})
    llm = ScriptedReplies(replies=[first_chain, first_trace, FOLLOW, BUSES])
    graph = build_graph(checkpointer=InMemorySaver())
    ctx = Context(llm=llm, retriever=retriever, reader=reader)
    first = graph.invoke({"question": Q1}, config("t"), context=ctx)
    second = graph.invoke(
        {"question": "Where do Kevin Drew's buses leave?"}, config("t"), context=ctx
    )
    return first, second, llm.calls[2][0].text, retriever.queries, graph


def test_a_follow_up_is_never_told_an_unchecked_step_is_verified(passages):
    """Issue 41, case 9: every earlier step was listed under "Verified facts", an unstated one
    too, and a sub-query repeating it was accepted again without searching."""
    first, second, prompt, queries, graph = follow_up(
        passages, CHAIN, "Montreal [1]. So the final answer is Montreal."
    )
    assert first["answer"] == "Montreal" and first["nodes"][0].support == "unstated"
    assert "<earlier>" in prompt and "[Answer]: Montreal" in prompt
    verified = prompt.split("Verified facts")[1].split("Given by the person")[0]
    assert "Montreal" not in verified and "(none)" in verified
    assert f"- {Q1} Montreal." in prompt.split("Not verified")[1]
    assert queries == [Q1, Q1, "Where do buses leave?"]  # searched again, not reused
    again = second["nodes"][0]
    assert not again.reused and again.passage.id == "p2" and again.support == "stated"
    assert second["answer"] == "Toronto Coach Terminal" and second["rounds"] == 1
    state = graph.get_state(config("t")).values
    assert [t.question for t in state["history"]] == [Q1]
    assert state["history"][0].answer == "Montreal"


def test_a_follow_up_reuses_a_verified_step_and_says_so_everywhere(passages, capsys):
    from searchain.chat_markdown import answer_markdown
    from searchain.cli.render import show_tree
    from searchain.output import result_to_json
    from searchain.page.render import render_page

    verified_chain = f"[Query 1]: {Q1}\n[Answer 1]: Toronto."
    first, second, prompt, queries, _ = follow_up(
        passages, verified_chain, "Toronto [1]. So the final answer is Toronto."
    )
    assert first["nodes"][0].support == "stated"
    verified = prompt.split("Verified facts")[1].split("Given by the person")[0]
    assert f"- {Q1} Toronto." in verified
    assert queries == [Q1, "Where do buses leave?"]  # Q1 was not searched again
    reused = second["nodes"][0]
    assert reused.reused and reused.passage.id == "p2" and reused.support == "stated"
    # Each question counts its own unreadable replies (neither chain had [Final Content]).
    assert first["format_failures"] == second["format_failures"] == ["no_final_content"]
    assert "reused from an earlier question" in answer_markdown(second)  # the chat reply
    show_tree(second)  # the terminal tree
    assert "reused from an earlier question" in capsys.readouterr().out
    page = render_page([result_to_json(second)])
    assert "Reused from an earlier question" in page


def test_a_persons_answer_is_given_as_theirs_and_reused(passages):
    from searchain.nodes.searchain.generate_coq import _first_prompt, reusable
    from searchain.state import State, TreeNode, Turn

    # the person's answer, even one its passage does not state, is theirs to reuse
    edited = TreeNode(id=0, branch=0, parent=None, query=Q1, llm_answer="Montreal.",
                      answer="Toronto, Ontario", source="edited", support="unstated",
                      step=1)  # fmt: skip
    kept = TreeNode(id=1, branch=0, parent=0, query="Q2?", llm_answer="X", answer="X",
                    source="llm", support="unstated", rejected="Y", step=2)  # fmt: skip
    plain = TreeNode(id=2, branch=0, parent=1, query="Q3?", llm_answer="Z", answer="Z",
                     source="llm", support="unverifiable", step=3)  # fmt: skip
    state = State(question="Next?", history=[Turn(Q1, "Toronto", [edited, kept, plain])])
    prompt = _first_prompt(state, Context())
    given = prompt.split("Given by the person")[1].split("Not verified")[0]
    assert "Toronto, Ontario (the person's answer)" in given
    assert "kept over the passage's Y" in given
    assert "- Q3? Z" in prompt.split("Not verified")[1]
    assert prompt.split("Verified facts")[1].split("Given by the person")[0].count("- ") == 0
    assert [reusable(step) for step in (edited, kept, plain)] == [True, False, False]


def approval_run(passages, decision):
    retriever = TableRetriever({Q1: passages["drew"]})
    reader = TableReader({"p2": ("Toronto", 3.0)})
    llm = ScriptedReplies(
        replies=[
            CHAIN,
            f"[Query 1]: {Q1}\n[Answer 1]: Toronto.",
            "Toronto [1]. So the final answer is Toronto.",
        ]
    )
    graph = build_graph(checkpointer=InMemorySaver())
    ctx = Context(llm=llm, retriever=retriever, reader=reader, approve_corrections=True)
    paused = graph.invoke({"question": Q1}, config("a"), context=ctx)
    request = graph.get_state(config("a")).interrupts[0].value
    assert "answer" not in paused or not paused.get("answer")
    [action] = request["action_requests"]  # LangChain's human-in-the-loop shape
    assert request["review_configs"] == [
        {"action_name": action["name"], "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    pending = action["args"]
    assert pending["model_answer"] == "Montreal." and pending["answer"] == "Toronto"
    assert pending["confidence"] == 3.0 and pending["passage"].startswith("Kevin Drew")
    return graph.invoke(Command(resume=decision), config("a"), context=ctx), llm


def test_approved_correction_is_fed_back(passages):
    out, _ = approval_run(passages, "approve")
    assert out["nodes"][0].source == "corrected" and out["nodes"][0].answer == "Toronto"
    assert out["rounds"] == 2 and out["answer"] == "Toronto"


def test_rejected_correction_is_recorded_and_the_llm_answer_stands(passages):
    out, llm = approval_run(passages, {"approve": False})
    node = out["nodes"][0]
    assert node.source == "llm" and node.answer == "Montreal." and node.rejected == "Toronto"
    assert out["rounds"] == 1 and len(llm.calls) == 2  # no feedback round


def test_async_entry_points(passages):
    retriever = TableRetriever({Q1: passages["drew"]})
    reader = TableReader({"p2": ("Montreal", 3.0)})

    async def go():
        llm = ScriptedReplies(replies=[CHAIN, "Montreal [1]. So the final answer is Montreal."])
        ctx = Context(llm=llm, retriever=retriever, reader=reader)
        result = await build_graph().ainvoke({"question": Q1}, context=ctx)
        llm2 = ScriptedReplies(replies=[CHAIN, "Montreal [1]. So the final answer is Montreal."])
        ctx2 = Context(llm=llm2, retriever=retriever, reader=reader)
        events = [
            c
            async for c in build_graph().astream(
                {"question": Q1}, context=ctx2, stream_mode="custom"
            )
        ]
        return result, events

    result, events = asyncio.run(go())
    assert result["answer"] == "Montreal"
    assert [e["event"] for e in events][:2] == ["round_started", "chain_generated"]
    assert events[-1]["event"] == "trace_done"


def test_a_run_without_context_keeps_the_settings_its_thread_started_with(tmp_path):
    """A resumed approval that passes no context (as a LangGraph server client may) runs with
    the thread's own LLM, index, reader and switches, never the defaults."""
    import json

    from searchain.types import Passage

    embedded.build([Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto.")], tmp_path / "i")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "chains": [CHAIN, f"[Query 1]: {Q1}\n[Answer 1]: Toronto."],
                "trace": "Toronto [1]. So the final answer is Toronto.",
                "reader": "Answer: Toronto\nConfidence: 0.9",
            }
        )
    )
    ctx = Context(
        llm=f"scripted:{script}",
        retriever=f"bm25:{tmp_path / 'i'}",
        reader="llm",
        approve_corrections=True,
        r_max=3,
    )
    graph = build_graph(checkpointer=InMemorySaver())
    graph.invoke({"question": Q1}, config("s"), context=ctx)
    state = graph.get_state(config("s"))
    assert state.interrupts and state.values["settings"]["r_max"] == 3
    out = graph.invoke(Command(resume="approve"), config("s"))  # no context at all
    assert out["answer"] == "Toronto" and out["nodes"][0].source == "corrected"
    # A follow-up question without context also runs on the thread's settings.
    again = graph.invoke({"question": Q1}, config("s"))
    assert again["history"][0].answer == "Toronto" and again["rounds"] >= 1


def test_a_thread_started_with_objects_needs_them_again(passages):
    from searchain.context import context_of, thread_settings

    llm = ScriptedReplies(replies=[])
    saved = thread_settings(Context(llm=llm, r_max=3, theta=2.0))
    assert saved == {"llm": {"object": "ScriptedReplies"}, "r_max": 3, "theta": 2.0}

    class Runtime:
        def __init__(self, context):
            self.context = context

    with pytest.raises(ValueError, match=r"ScriptedReplies object as 'llm'.*context again"):
        context_of(Runtime(None), saved)
    ctx = context_of(Runtime(Context(llm=llm, r_max=4)), saved)
    assert (ctx.llm, ctx.r_max, ctx.theta) == (llm, 4, 2.0)  # given fields win, the rest kept
    _, graph_llm = approval_run(passages, "approve")
    assert graph_llm.calls  # the object path still works when the context is passed each run
