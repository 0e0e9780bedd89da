"""Chat: ``messages`` is the person's conversation, in and out, for SearChain and IRCoT.

What a chat front-end (Agent Chat UI, Studio's chat view, ``useStream``) sends and reads: a
human message asks, one AI message answers (progress while the run goes on, then the answer with
its citations and references), LangGraph's ``messages`` stream carries none of the LLM's own
conversation, and a correction awaiting approval is a human-in-the-loop request whose
decisions (approve, edit, reject) resume the run.
"""

from __future__ import annotations

import base64
from dataclasses import replace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
from langgraph.types import Command

from searchain.context import Context
from searchain.decisions import read_decision
from searchain.graph.ircot import build_graph as build_ircot
from searchain.graph.searchain import build_graph
from searchain.nodes.chat.receive import receive
from searchain.state import Branch, State, TreeNode
from tests.conftest import PASSAGES, ScriptedReplies, TableReader, TableRetriever
from tests.documents import PAINTERS, pdf_bytes
from tests.unit.nodes.searchain.test_graph import GOOD_CHAIN, Q1, Q2, Q3, TRACE, Q

PROMPT_MARKS = ("[Query 1]", "Construct a global reasoning chain", "[Unsolved Query]")
"""Text of the LLM's own conversation, which never reaches the person's."""
FOLLOW = "Where was Kevin Drew born?"
FOLLOW_CHAIN = f"[Query 1]: {Q2}\n[Answer 1]: Toronto.\n[Final Content]: Toronto [1]."
FOLLOW_TRACE = "He was born in Toronto [1]. So the final answer is Toronto."


def config(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


@pytest.fixture
def ctx(passages):
    def make(replies: list[str], **settings) -> Context:
        retriever = TableRetriever(
            {Q1: passages["spirit"], Q2: passages["drew"], Q3: passages["bus"]}
        )
        reader = TableReader(
            {
                "p1": ("Kevin Drew", 3.0),
                "p2": ("Toronto", 3.0),
                "p3": ("Toronto Coach Terminal", 3.0),
            }
        )
        llm = ScriptedReplies(replies=replies)
        return Context(llm=llm, retriever=retriever, reader=reader, **settings)

    return make


def person(messages) -> list[tuple[str, str]]:
    pairs = [(m.type, m.text) for m in messages]
    assert not [text for _, text in pairs if any(mark in text for mark in PROMPT_MARKS)]
    return pairs


def test_a_question_and_its_answer_are_the_persons_conversation(ctx):
    out = build_graph().invoke({"question": Q}, context=ctx([GOOD_CHAIN, TRACE]))
    [(asked, question), (answered, reply)] = person(out["messages"])
    assert (asked, question, answered) == ("human", Q, "ai")
    assert reply.startswith("**Answer:** Toronto Coach Terminal")
    assert "Buses leave from the Toronto Coach Terminal [3]." in reply  # the cited content
    assert "1. Who is the performer of Spirit If... ? → **The performer" in reply  # the steps
    assert "[2] *Kevin Drew*: “Kevin Drew was born in Toronto, Ontario.” — states" in reply


def test_messages_ask_and_a_follow_up_in_the_same_thread_sees_the_first(ctx):
    graph = build_graph(checkpointer=InMemorySaver())
    ask = {"type": "human", "content": [{"type": "text", "text": Q}]}  # as Agent Chat UI sends
    first = graph.invoke({"messages": [ask]}, config("c"), context=ctx([GOOD_CHAIN, TRACE]))
    assert first["question"] == Q and first["answer"] == "Toronto Coach Terminal"
    llm = ScriptedReplies(replies=[FOLLOW_CHAIN, FOLLOW_TRACE])
    second = graph.invoke(
        {"messages": [HumanMessage(FOLLOW)]}, config("c"), context=replace(ctx([]), llm=llm)
    )
    assert second["question"] == FOLLOW and second["answer"] == "Toronto"
    assert "[Question]: " + Q in llm.calls[0][0].text  # the first turn, as history
    kinds = [kind for kind, _ in person(second["messages"])]
    assert kinds == ["human", "ai", "human", "ai"]
    # A run given `question` after runs given `messages` asks that question, not the last one.
    llm = ScriptedReplies(replies=[FOLLOW_CHAIN, FOLLOW_TRACE])
    third = graph.invoke({"question": Q2}, config("c"), context=replace(ctx([]), llm=llm))
    assert third["question"] == Q2 and person(third["messages"])[-2] == ("human", Q2)


def test_a_stateless_conversation_gives_its_earlier_turns_as_history(ctx):
    llm = ScriptedReplies(replies=[FOLLOW_CHAIN, FOLLOW_TRACE])
    messages = [
        HumanMessage("Who made Spirit If...?"),
        AIMessage("Kevin Drew."),
        HumanMessage(FOLLOW),
    ]
    out = build_graph().invoke({"messages": messages}, context=replace(ctx([]), llm=llm))
    assert out["question"] == FOLLOW and [t.answer for t in out["history"]] == ["Kevin Drew."]
    assert "[Question]: Who made Spirit If...?\n[Answer]: Kevin Drew." in llm.calls[0][0].text


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ({"question": "  "}, "the question is empty"),
        ({"messages": [HumanMessage(" ")]}, "the question is empty"),
        ({"messages": []}, "it has no messages"),
        ({"messages": [AIMessage("Hello.")]}, "end in a ai message"),
    ],
)
def test_nothing_to_answer_is_one_line(ctx, given, why):
    with pytest.raises(ValueError, match=why):
        build_graph().invoke(given, context=ctx([]))


ENDINGS = [
    ({"messages": []}, "end in a ai message"),  # the last reply is the thread's own
    ({"messages": [AIMessage("Anything else?")]}, "end in a ai message"),
    (
        {"messages": [AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c1"}]),
                      ToolMessage("42", tool_call_id="c1")]},
        "end in a tool message",
    ),
    ({}, "end in a ai message"),  # nothing at all
]  # fmt: skip


@pytest.mark.parametrize(("given", "why"), ENDINGS)
@pytest.mark.parametrize("build", [build_graph, build_ircot])
def test_a_thread_that_answered_refuses_messages_that_ask_nothing(ctx, build, given, why):
    """Issue 41, case 5: ``{"messages": []}`` or a tool message answered the last question
    again and added a human message the person never sent."""
    graph = build(checkpointer=InMemorySaver())
    replies = [GOOD_CHAIN, TRACE] * 2 if build is build_graph else ["So the answer is: X."] * 8
    context = ctx(replies)
    graph.invoke({"question": Q}, config("ends"), context=context)
    before = graph.get_state(config("ends")).values["messages"]
    calls = len(context.llm.calls)
    with pytest.raises(ValueError, match=f"this run asks no question: .*{why}") as refused:
        graph.invoke(given, config("ends"), context=context)
    assert "\n" not in str(refused.value).split("\nDuring task")[0]
    assert len(context.llm.calls) == calls  # nothing answered
    humans = [m for m in graph.get_state(config("ends")).values["messages"] if m.type == "human"]
    assert [m.text for m in humans] == [m.text for m in before if m.type == "human"]
    # the same question asked again by `question` is a question, answered
    out = graph.invoke({"question": Q}, config("ends"), context=context)
    assert out["question"] == Q and len(context.llm.calls) > calls


def test_progress_shows_in_the_reply_and_the_answer_replaces_it(ctx):
    replies = []
    for values in build_graph().stream(
        {"question": Q}, context=ctx([GOOD_CHAIN, TRACE]), stream_mode="values"
    ):
        ai = [m for m in values.get("messages", []) if m.type == "ai"]
        if ai:
            assert len(ai) == 1 and ai[0].id == values["reply_id"]  # one reply, replaced
            replies.append(ai[0].text)
    assert (
        replies[0].startswith("_Working on it…_") and "Round 1: the model planned 3" in replies[0]
    )
    steps = [r for r in replies if "Step 3 ·" in r]
    assert steps and "Toronto Coach Terminal" in steps[0]
    assert replies[-1].startswith("**Answer:**")


def test_the_messages_stream_carries_the_reply_and_never_the_llms_conversation(ctx):
    streamed = []
    for message, _ in build_graph().stream(
        {"question": Q}, context=ctx([GOOD_CHAIN, TRACE]), stream_mode="messages"
    ):
        streamed.append(message)
    person(streamed)  # no prompt, chain or feedback
    # Progress and the answer are one message; Trace's own words stream under its run id (the
    # reply's, for a model whose streamed message LangChain names: "-0" for a whole reply).
    [reply_id] = {m.id for m in streamed if m.type == "ai" and m.text != TRACE}
    [traced] = [m for m in streamed if m.text == TRACE]
    assert traced.id.startswith(reply_id)


def test_the_llm_readers_calls_never_reach_the_messages_stream(passages):
    """Issue 41, case 7: "Answer: … / Confidence: …" arrived in the stream chat UIs render."""
    unsure = "Answer: Kevin Drew\nConfidence: 0.1"
    llm = ScriptedReplies(replies=[GOOD_CHAIN, unsure, unsure, unsure, TRACE])
    retriever = TableRetriever({Q1: passages["spirit"], Q2: passages["drew"], Q3: passages["bus"]})
    ctx = Context(llm=llm, retriever=retriever, reader="llm")
    streamed = [m for m, _ in build_graph().stream({"question": Q}, context=ctx,
                                                   stream_mode="messages")]  # fmt: skip
    assert len(llm.calls) == 5  # the reader did read, through the model
    assert not [m.text for m in streamed if "Confidence" in m.text]
    person(streamed)
    assert [m.text for m in streamed if m.type != "ai"] == [Q]  # the person's question
    replies = [m for m in streamed if m.type == "ai"]
    [reply_id] = {m.id for m in replies if m.text != TRACE}
    assert all(m.id.startswith(reply_id) for m in replies)  # the reply, or Trace's words in it


def test_ircot_answers_in_the_conversation_and_a_follow_up_starts_afresh(passages):
    retriever = TableRetriever({Q: passages["drew"], FOLLOW: passages["bus"]})
    graph = build_ircot(checkpointer=InMemorySaver())
    llm = ScriptedReplies(
        replies=["So the answer is Toronto.", "Toronto", "So the answer is x.", "x"]
    )
    ctx = Context(llm=llm, retriever=retriever, ircot_k=1)
    shown = [
        [m.text for m in values.get("messages", []) if m.type == "ai"]
        for values in graph.stream(
            {"messages": [HumanMessage(Q)]}, config("i"), context=ctx, stream_mode="values"
        )
    ]
    first = graph.get_state(config("i")).values
    progress = [texts[0] for texts in shown if texts and texts[0].startswith("_Working")]
    assert "Searched “" in progress[0] and "*Kevin Drew*" in progress[0]
    assert "Step 1: So the answer is Toronto." in progress[-1]
    second = graph.invoke({"question": FOLLOW}, config("i"), context=ctx)
    [(_, q1), (_, a1), (_, q2), (_, a2)] = person(second["messages"])
    assert (q1, q2) == (Q, FOLLOW) and a1.startswith("**Answer:** Toronto")
    assert "[1] *Kevin Drew*" in a1 and "[1] *Toronto Coach Terminal*" in a2
    assert [p.id for p in first["paragraphs"]] == ["p2"]
    assert [p.id for p in second["paragraphs"]] == ["p3"]  # not the first question's


CHAIN = f"[Query 1]: {Q2}\n[Answer 1]: Montreal."
REPLAN = f"[Query 1]: {Q2}\n[Answer 1]: Toronto.\n[Final Content]: Toronto [1]."


def paused(ctx, thread: str):
    graph = build_graph(checkpointer=InMemorySaver())
    context = ctx([CHAIN, REPLAN, "Toronto [1]. So the final answer is Toronto."],
                  approve_corrections=True)  # fmt: skip
    graph.invoke({"question": Q2}, config(thread), context=context)
    [interrupt] = graph.get_state(config(thread)).interrupts
    return graph, context, interrupt.value


def test_a_correction_is_a_human_in_the_loop_request(ctx):
    _, _, request = paused(ctx, "h")
    [action] = request["action_requests"]
    assert action["name"] == "correct_step" and "*Kevin Drew*" in action["description"]
    assert action["args"]["answer"] == "Toronto" and action["args"]["model_answer"] == "Montreal."
    assert request["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]


def test_an_edit_decision_takes_the_persons_answer_and_re_plans(ctx):
    graph, context, request = paused(ctx, "e")
    args = {**request["action_requests"][0]["args"], "answer": "Toronto, Ontario"}
    decision = {"type": "edit", "edited_action": {"name": "correct_step", "args": args}}
    out = graph.invoke(Command(resume={"decisions": [decision]}), config("e"), context=context)
    node = out["nodes"][0]
    assert (node.source, node.answer) == ("edited", "Toronto, Ontario") and out["rounds"] == 2
    feedback = context.llm.calls[1][-1].text
    assert "Toronto, Ontario" in feedback  # the re-plan starts from the person's answer


def test_a_reject_decision_keeps_the_models_answer_and_says_why(ctx):
    graph, context, _ = paused(ctx, "r")
    decision = {"type": "reject", "message": "the passage is about another Kevin Drew"}
    out = graph.invoke(Command(resume={"decisions": [decision]}), config("r"), context=context)
    node = out["nodes"][0]
    assert (node.source, node.answer, node.rejected) == ("llm", "Montreal.", "Toronto")
    progress = graph.get_state(config("r")).values["progress"]
    assert any("another Kevin Drew" in line for line in progress)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (True, "approve"),
        (False, "reject"),
        ("yes", "approve"),
        ("approve", "approve"),
        (" Reject ", "reject"),
        ({"approve": False}, "reject"),
        ({"approve": True}, "approve"),
        ({"decisions": [{"type": "approve"}]}, "approve"),
        ({"type": "reject"}, "reject"),
        ({"type": "reject", "message": "another Kevin Drew"}, "reject"),
        ({"decisions": [{"type": "edit", "edited_action": {"args": {"answer": "X"}}}]}, "edit"),
        ({"type": "edit", "edited_action": {"name": "correct_step", "args": {"answer": "X"}}},
         "edit"),
    ],
)  # fmt: skip
def test_every_resume_form_reads_as_a_decision(value, kind):
    assert read_decision(value).kind == kind


REFUSED_DECISIONS = [
    {"type": "Approve"},  # a decision's type is spelt as offered
    {"type": "accept"},
    {"decisions": [{"type": "accept"}]},
    {"decisions": []},
    {"decisions": [{"type": "approve"}, {"type": "reject"}]},
    {"decisions": {"type": "approve"}},
    {"decisions": ["approve"]},
    {"decisions": [{"type": "approve"}], "extra": 1},
    {"type": "approve", "message": "fine"},  # a field the decision does not take
    {"type": "edit", "edited_action": "Toronto"},  # was an AttributeError
    {"type": "edit", "edited_action": {"args": "Toronto"}},
    {"type": "edit", "edited_action": {"args": {"answer": "X"}, "extra": 1}},
    {"type": "edit", "edited_action": {"name": "delete_step", "args": {"answer": "X"}}},
    {"type": "edit", "edited_action": {"args": {"answer": 3}}},
    {"type": "edit", "edited_action": {"args": {}}},
    {"type": "reject", "message": ["no"]},
    {"type": None},
    {"approve": "false"},  # a string is no bool here
    {"approve": True, "why": "x"},
    {},
    None,
    "maybe",
    "",
    1,
    ["approve"],
]


@pytest.mark.parametrize("value", REFUSED_DECISIONS)
def test_what_is_not_a_decision_is_refused_in_one_line_naming_the_forms(value):
    with pytest.raises(ValueError) as refused:
        read_decision(value)
    message = str(refused.value)
    assert "\n" not in message
    assert "a decision is" in message and '{"type": "approve"}' in message


def test_a_refused_decision_leaves_the_thread_awaiting_one(ctx):
    """``{"type": "Approve"}`` was read as a rejection, dropping the passage's right answer."""
    graph, context, _ = paused(ctx, "s")
    for value in ({"type": "Approve"}, {"decisions": [{"type": "accept"}]}, "maybe"):
        graph.invoke(Command(resume=value), config("s"), context=context)
        [pause] = graph.get_state(config("s")).interrupts  # still awaiting a decision
        why = pause.value["refused"]
        assert "a decision is" in why and "\n" not in why
        assert pause.value["action_requests"][0]["description"].startswith("Refused: ")
        assert not graph.get_state(config("s")).values["nodes"][0].step  # nothing decided
    out = graph.invoke(
        Command(resume={"decisions": [{"type": "approve"}]}), config("s"), context=context
    )
    node = out["nodes"][0]
    assert (node.source, node.answer, node.rejected) == ("corrected", "Toronto", "")


def test_an_off_point_model_that_never_cites_gets_no_better_reply(passages):
    """Off-point answers, no citation, no "So the final answer is": the reply says all of it."""
    off = f"[Query 1]: {Q1}\n[Answer 1]: Bananas are yellow.\n[Query 2]: {Q2}\n[Answer 2]: Rain."
    retriever = TableRetriever({Q1: passages["spirit"], Q2: passages["drew"]})
    llm = ScriptedReplies(replies=[off, "Bananas are a fruit."])
    ctx = Context(llm=llm, retriever=retriever, reader=TableReader({}))
    reply = build_graph().invoke({"question": Q}, context=ctx)["messages"][-1].text
    assert "Bananas are yellow [1]†" in reply  # its passage does not state it, marked
    assert "does not state the step's answer (cited by searchain)" in reply
    assert "> Composed by searchain from the reasoning steps" in reply
    assert (
        "> The model's reply had no final-answer line: the answer shown is the last step's."
        in reply
    )
    assert "checked" not in reply  # nothing claims a check that found nothing against it


def legacy_state(accepted: bool, last: HumanMessage) -> State:
    """A thread an earlier release left mid-question: its messages the LLM's conversation."""
    step, source = (1, "corrected") if accepted else (None, None)
    node = TreeNode(id=0, branch=0, parent=None, query=Q2, llm_answer="Montreal.", step=step,
                    source=source)  # fmt: skip
    conversation = [HumanMessage("Construct a global reasoning chain…", id="m0"),
                    AIMessage(CHAIN, id="m1"), last]  # fmt: skip
    return State(question=Q2, question_asked=Q2, messages=conversation, messages_version=0,
                 nodes=[node], branches=[Branch(0, None, [0])], cursor=0)  # fmt: skip


@pytest.mark.parametrize("accepted", [True, False])
@pytest.mark.parametrize("enter", ["receive", "edit", "verify"])
def test_a_pre_release_thread_is_refused_wherever_a_run_enters(accepted, enter):
    """A thread whose messages hold the model's conversation (a pre-release's) is refused in one
    line by each node a run enters by, before it writes anything; its neighbours, a thread of
    this release and one that never asked, are not."""
    from searchain.nodes.searchain.edit import edit
    from searchain.nodes.searchain.verify import verify

    state = legacy_state(accepted=accepted, last=HumanMessage(Q3, id="new"))
    node = {"receive": receive, "edit": edit, "verify": verify}[enter]
    with pytest.raises(ValueError, match="checkpointed by a pre-release of searchain") as refused:
        node(state, Runtime(context=Context()))
    assert "\n" not in str(refused.value) and "start a new thread" in str(refused.value)
    if enter == "receive":
        ours = receive(replace(state, messages_version=1), Runtime(context=Context()))
        assert ours["question"] == Q3 and ours["asked_id"] == "new"
        fresh = receive(replace(state, question_asked=""), Runtime(context=Context()))
        assert fresh["question"] == Q3


MONACO = "Who influenced Lorenzo Monaco?"
MONACO_CHAIN = f"[Query 1]: {MONACO}\n[Answer 1]: Cimabue"
MONACO_REPLAN = f"[Query 1]: {MONACO}\n[Answer 1]: Giotto\n[Final Content]: Giotto [1]."
MONACO_TRACE = "He was influenced by Giotto [1]. So the final answer is Giotto."


def pdf_block(pages=PAINTERS, name: str = "painters.pdf") -> dict:
    """What Agent Chat UI's "Upload PDF or Image" adds to the message."""
    data = base64.b64encode(pdf_bytes(pages, title="Painters of Florence", scanned=[1])).decode()
    return {"type": "file", "mimeType": "application/pdf", "data": data,
            "metadata": {"filename": name}}  # fmt: skip


def upload_context(replies: list[str], **settings) -> Context:
    """The index knows nothing of Lorenzo Monaco; the reader reads Giotto in the PDF's page 3."""
    index = TableRetriever({MONACO: PASSAGES["spirit"], Q1: PASSAGES["spirit"]})
    reader = TableReader({"painters.pdf#2": ("Giotto", 3.0), "p1": ("Kevin Drew", 3.0)})
    return Context(llm=ScriptedReplies(replies=replies), retriever=index, reader=reader, **settings)


def test_a_pdf_sent_with_the_question_is_searched_and_cited_to_its_page():
    """Issue 43: the upload's block was dropped and the question answered as if it had none."""
    graph = build_graph(checkpointer=InMemorySaver())
    asked = HumanMessage([{"type": "text", "text": MONACO}, pdf_block()])
    later = "Which painter did Lorenzo Monaco follow?"
    ctx = upload_context([MONACO_CHAIN, MONACO_REPLAN, MONACO_TRACE,
                          f"[Query 1]: {later}\n[Answer 1]: Giotto", MONACO_TRACE])  # fmt: skip
    out = graph.invoke({"messages": [asked]}, config("u"), context=ctx)
    assert out["question"] == MONACO and out["answer"] == "Giotto"
    [upload] = graph.get_state(config("u")).values["uploads"]
    assert (upload.name, upload.pages, len(upload.passages)) == ("painters.pdf", 3, 2)
    [reference] = out["references"]
    assert reference.id == "painters.pdf#2" and reference.source.page == 3
    [node] = out["nodes"]
    assert node.source == "corrected" and node.answer == "Giotto"  # the file corrected the model
    reply = out["messages"][-1].text
    assert "[1] *Painters of Florence* (painters.pdf, p. 3): “" in reply
    assert graph.get_state(config("u")).values["progress"][0] == (
        "read painters.pdf: 3 pages, 2 passages (no text layer on p. 2: searchain does no OCR)"
    )
    # A follow-up in the thread, sent without the file, still searches it; nothing is read twice.
    again = graph.invoke({"messages": [HumanMessage(later)]}, config("u"), context=ctx)
    assert [u.name for u in graph.get_state(config("u")).values["uploads"]] == ["painters.pdf"]
    assert again["references"][0].id == "painters.pdf#2"


def test_files_of_every_turn_a_run_brings_are_read_and_none_twice():
    """A conversation sent to a new thread brings its earlier turns' files too; a later run
    brings only its own messages."""
    graph = build_graph(checkpointer=InMemorySaver())
    notes = {"type": "text-plain", "text": "Giotto taught Taddeo Gaddi.", "title": "notes.txt"}
    conversation = [
        HumanMessage([{"type": "text", "text": "Who taught Taddeo Gaddi?"}, notes]),
        AIMessage("Giotto."),
        HumanMessage([{"type": "text", "text": MONACO}, pdf_block()]),
    ]
    ctx = upload_context([MONACO_CHAIN, MONACO_REPLAN, MONACO_TRACE] * 2)
    graph.invoke({"messages": conversation}, config("b"), context=ctx)
    held = graph.get_state(config("b")).values["uploads"]
    assert [u.name for u in held] == ["notes.txt", "painters.pdf"]
    graph.invoke(
        {"messages": [HumanMessage("Who taught Lorenzo Monaco?")]}, config("b"), context=ctx
    )
    assert graph.get_state(config("b")).values["uploads"] == held


def test_the_files_are_searched_alone_when_the_person_chooses():
    alone = upload_context([f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew", "Drew [1]."],
                           uploads_searched="alone")  # fmt: skip
    asked = HumanMessage([{"type": "text", "text": Q1}, pdf_block()])
    out = build_graph().invoke({"messages": [asked]}, context=alone)
    assert [n.passage for n in out["nodes"]] == [None]  # the index's passage on Drew not searched
    together = upload_context([f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew", "Drew [1]."])
    out = build_graph().invoke({"messages": [asked]}, context=together)
    assert [n.passage.id for n in out["nodes"]] == ["p1"]  # no word of it is in the file


@pytest.mark.parametrize(
    ("block", "said"),
    [
        ({"type": "image", "mimeType": "image/png", "data": "iVBO", "metadata": {"name": "a.png"}},
         "a.png is an 'image' block (an image: searchain does no OCR): searchain reads files of"),
        ({"type": "file", "source_type": "url", "url": "https://x/a.pdf"}, "by URL or file id"),
        (pdf_block([["x"]] * 4, "long.pdf"), "long.pdf has 4 pages, over this server's bound of 3"),
    ],
    ids=["image", "url", "too-many-pages"],
)  # fmt: skip
def test_a_file_not_read_refuses_the_message_whole_in_one_line(block, said):
    graph = build_graph(checkpointer=InMemorySaver())
    asked = HumanMessage([{"type": "text", "text": MONACO}, pdf_block(), block])
    ctx = upload_context([MONACO_CHAIN, MONACO_REPLAN, MONACO_TRACE], upload_max_pages=3)
    with pytest.raises(ValueError) as refused:
        graph.invoke({"messages": [asked]}, config("r"), context=ctx)
    assert said in str(refused.value) and "\n" not in str(refused.value)
    held = graph.get_state(config("r")).values
    assert held.get("uploads", []) == [] and not held.get("question_asked")


def test_ircot_searches_the_files_sent_with_the_question():
    graph = build_ircot()
    llm = ScriptedReplies(replies=["So the answer is Giotto.", "Giotto"])
    ctx = Context(llm=llm, retriever=TableRetriever({}), ircot_k=1)
    asked = HumanMessage([{"type": "text", "text": MONACO}, pdf_block()])
    out = graph.invoke({"messages": [asked]}, context=ctx)
    assert [p.id for p in out["paragraphs"]] == ["painters.pdf#2"]
    assert "[1] *Painters of Florence* (painters.pdf, p. 3): “" in out["messages"][-1].text
