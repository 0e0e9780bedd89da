"""The baselines' control flow (Self-Ask, ReAct, CoT-SC, Plan-and-Solve, Verify-and-Edit) with
scripted models over an in-memory retriever; their prompts keep retrieved text delimited."""

from __future__ import annotations

import pytest

from searchain.methods import get_method
from searchain.types import Passage
from tests.conftest import ScriptedReplies
from tests.unit.test_injection import HOSTILE, assert_data_stays_inside

QUESTION = "Where was the performer of Spirit If... born?"


class Recorder:
    """Returns passages naming the query, recording each query and K."""

    def __init__(self, text: str = "") -> None:
        self.queries: list[tuple[str, int]] = []
        self.text = text

    def search(self, query: str, k: int = 1) -> list[Passage]:
        self.queries.append((query, k))
        n = len(self.queries)
        body = self.text or f"About {query}. Kevin Drew was born in Toronto. Drew sings."
        return [Passage(f"p{n}-{i}", f"Title {n}-{i}", f"{body} ({i})") for i in range(k)]


def run(method: str, replies: list[str], retriever=None, **settings):
    llm = ScriptedReplies(replies=replies)
    retriever = retriever or Recorder()
    m = get_method(method)
    context = m.context(llm=llm, retriever=retriever, ircot_demos="", **settings)
    out = m.compiled().invoke({"question": QUESTION}, context=context)
    return out, llm, retriever


def test_self_ask_answers_follow_ups_from_retrieval():
    out, llm, retriever = run(
        "self-ask",
        [
            "Yes.\nFollow up: Who is the performer of Spirit If...?",
            "Kevin Drew",  # read from the retrieved paragraphs
            "Follow up: Where was Kevin Drew born?",
            "Toronto",
            "So the final answer is: Toronto",
        ],
        ircot_k=2,
    )
    assert out["answer"] == "Toronto" and out["steps"] == 3 and out["format_failures"] == []
    assert retriever.queries == [
        ("Who is the performer of Spirit If...?", 2),
        ("Where was Kevin Drew born?", 2),
    ]
    assert llm.stops[0] == ["\n\n", "\nQuestion:", "Intermediate answer:"]
    third = llm.calls[2][0].text
    assert third.endswith(
        "Are follow up questions needed here: Yes.\nFollow up: Who is the performer of Spirit "
        "If...?\nIntermediate answer: <answer>Kevin Drew</answer>.\n"
    )
    assert "Wikipedia Title: Title 1-0" in llm.calls[1][0].text  # the reader saw the paragraphs
    assert len(out["paragraphs"]) == 4 and "<answer>" not in out["generation"]
    assert out["generation"].endswith("So the final answer is: Toronto")


def test_self_ask_without_ir_writes_its_own_intermediate_answers():
    transcript = (
        "Yes.\nFollow up: Who is the performer?\nIntermediate answer: Kevin Drew.\n"
        "So the final answer is: Toronto"
    )
    out, llm, retriever = run("self-ask-no-ir", [transcript])
    assert out["answer"] == "Toronto" and retriever.queries == [] and len(llm.calls) == 1
    assert out["paragraphs"] == [] and out["queries"] == []  # every output field is there
    assert "Intermediate answer:" not in llm.stops[0]


def test_self_ask_is_forced_to_answer_at_the_step_limit():
    out, llm, _ = run(
        "self-ask",
        ["Yes.\nFollow up: Who?", "Kevin Drew", " Kevin Drew"],
        ircot_max_steps=1,
    )
    assert out["answer"] == "Kevin Drew" and len(llm.calls) == 3
    assert llm.calls[2][0].text.endswith("So the final answer is:")
    assert out["format_failures"] == []  # forced at the limit, not unreadable


def test_self_ask_reply_with_neither_a_follow_up_nor_a_final_answer_is_counted():
    out, llm, _ = run("self-ask", ["I would say Toronto, probably."], ircot_k=2)
    assert len(llm.calls) == 1 and out["answer"] == "I would say Toronto, probably"
    assert out["format_failures"] == ["no_final_answer"]


def test_react_searches_looks_up_and_finishes():
    out, llm, retriever = run(
        "react",
        [
            " I need to search Spirit If.\nAction 1: Search[Spirit If...]",
            " Look for born.\nAction 2: Lookup[born]",
            " Try again.\nAction 3: Lookup[born]",
            " I am confused.\nAction 4: Dance[now]",
            " So it is Toronto.\nAction 5: Finish[Toronto]",
        ],
    )
    assert out["answer"] == "Toronto" and out["steps"] == 5
    assert retriever.queries == [("Spirit If...", 1)]
    last = llm.calls[4][0].text
    assert "Observation 1: <reference>About Spirit If.... Kevin Drew was born in Toronto." in last
    assert "Observation 2: <reference>(Result 1 / 1) Kevin Drew was born in Toronto." in last
    assert "Observation 3: <reference>No more results.</reference>" in last
    assert "Observation 4: <reference>Invalid action" in last
    assert last.endswith("Thought 5:") and llm.stops[0] == ["\nObservation 1", "\nQuestion:"]
    assert out["format_failures"] == ["invalid_action"]  # step 4's Dance[now]


def test_react_is_forced_to_finish_at_the_step_limit():
    out, llm, _ = run("react", [" Search.\nAction 1: Search[Drew]", "Toronto"], ircot_max_steps=1)
    assert out["answer"] == "Toronto" and llm.calls[1][0].text.endswith("Action 2: Finish[")
    assert llm.stops[1] == ["]"]


def test_cot_sc_takes_the_majority_of_sampled_chains():
    samples = [
        f"Drew sings. So the answer is: {a}."
        for a in ("Toronto", "Paris", "toronto", "Rome", "Oslo")
    ]
    out, llm, retriever = run("cot-sc", samples)
    assert out["paragraphs"] == [] and out["queries"] == []
    assert out["answer"] == "Toronto" and out["cot"] == samples and retriever.queries == []
    assert len(llm.calls) == 5 and all(stop == ["\n"] for stop in llm.stops)
    assert out["format_failures"] == []
    samples[1] = "Drew sings in Paris."  # no "answer is": voted as itself, and counted
    samples[3] = "Rome."
    out, _, _ = run("cot-sc", samples)
    assert out["answer"] == "Toronto" and out["format_failures"] == ["no_final_answer"] * 2


def test_verify_and_edit_leaves_a_confident_vote_alone():
    samples = ["So the answer is: Toronto."] * 3 + ["So the answer is: Paris."] * 2
    out, llm, retriever = run("verify-and-edit", samples)
    assert out["answer"] == "Toronto" and len(llm.calls) == 5 and retriever.queries == []


def test_verify_and_edit_checks_an_unsure_rationale_against_retrieval():
    samples = [
        "Spirit If... is by Kevin Drew. Drew was born in Paris. So the answer is: Paris.",
        "So the answer is: Oslo.",
        "So the answer is: Rome.",
        "So the answer is: Lima.",
        "So the answer is: Kyiv.",
    ]
    replies = [
        *samples,
        "Who made Spirit If...?",
        "Kevin Drew",
        "Where was Drew born?",
        "Toronto",
        " Toronto",
    ]
    out, llm, retriever = run("verify-and-edit", replies, ircot_k=3)
    assert out["answer"] == "Toronto"
    assert retriever.queries == [("Who made Spirit If...?", 3), ("Where was Drew born?", 3)]
    final = llm.calls[-1][0].text
    assert (
        "<reasoning>Who made Spirit If...? Kevin Drew. Where was Drew born? Toronto.</reasoning>"
        in final
    )


@pytest.mark.parametrize(
    ("method", "searched"), [("plan-and-solve", True), ("plan-and-solve-no-ir", False)]
)
def test_plan_and_solve_plans_then_extracts_the_answer(method, searched):
    out, llm, retriever = run(
        method,
        ["Plan: find the singer, then his birthplace. He is from Toronto.", " Toronto."],
        oner_k=4,
    )
    assert out["answer"] == "Toronto" and len(llm.calls) == 2
    assert retriever.queries == ([(QUESTION, 4)] if searched else [])
    assert ("<reference>" in llm.calls[0][0].text) is searched
    assert llm.calls[1][0].text.rstrip().endswith("Therefore, the answer is")
    assert "Let's first understand the problem and devise a plan" in llm.calls[0][0].text


@pytest.mark.parametrize("method", ["self-ask", "react", "verify-and-edit", "plan-and-solve"])
def test_retrieved_text_stays_inside_delimiters(method):
    hostile = Recorder(text=f"Kevin Drew was born in Toronto {HOSTILE}")
    replies = {
        "self-ask": ["Yes.\nFollow up: Who?", f"Drew {HOSTILE}", "So the final answer is: X"],
        "react": [
            " s\nAction 1: Search[Drew]",
            " l\nAction 2: Lookup[Toronto]",
            " f\nAction 3: Finish[X]",
        ],
        "verify-and-edit": [
            "A is B. So the answer is: 1.",
            "So the answer is: 2.",
            "So the answer is: 3.",
            "So the answer is: 4.",
            "So the answer is: 5.",
            "Is A B?",
            f"B {HOSTILE}",
            "X",
        ],
        "plan-and-solve": [f"Reasoning that repeats {HOSTILE}", "X"],
    }[method]
    out, llm, _ = run(method, replies, retriever=hostile)
    assert out["answer"]
    for call in llm.calls:
        assert_data_stays_inside(call[0].text)


def test_react_finishing_at_once_still_returns_every_output_field():
    out, _, retriever = run("react", [" I know it.\nAction 1: Finish[Toronto]"])
    assert out["answer"] == "Toronto" and retriever.queries == []
    assert out["paragraphs"] == [] and out["queries"] == [] and out["cot"] == []


@pytest.mark.parametrize(
    ("method", "replies", "answer"),
    [
        ("react", [" Done.\nAction 1: Finish[ ]"], ""),
        ("self-ask", ["No.\nSo the final answer is:"], ""),
        (
            "verify-and-edit",
            [
                *(
                    f"Drew sings. So the answer is: {a}."
                    for a in ("Oslo", "Oslo", "Rome", "Lima", "Bonn")
                ),
                *("Who sings?", "Drew", " "),
            ],
            "Oslo",  # the vote's answer stands
        ),
    ],
)
def test_an_empty_final_answer_states_none(method, replies, answer):
    """Nothing after the answer's mark is no answer (it was read as the answer "answer is")."""
    out, _, _ = run(method, replies)
    assert out["answer"] == answer
