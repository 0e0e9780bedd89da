"""A verdict on every citation: does the cited passage state the step that cites it?"""

from __future__ import annotations

import pytest

from searchain.eval.runner import EvalSpec, result_line
from searchain.eval.usage import UsageCounter
from searchain.integrations import format_answer
from searchain.methods import get_method
from searchain.output import result_to_json
from searchain.provenance import unstated_notes
from searchain.questions.record import Record
from tests.conftest import ScriptedReplies, TableReader, TableRetriever
from tests.unit.nodes.searchain.test_graph import (
    AFTER_UNSOLVED,
    GOOD_CHAIN,
    Q1,
    Q2,
    Q3,
    TRACE,
    UNSOLVED,
    agreeing_reader,
    run,
)

DREW = "Kevin Drew: Kevin Drew was born in Toronto, Ontario."
SPEC = EvalSpec("musique", "tune", "searchain", "fake", "none", "embedded")
RECORD = Record("musique", "q1", Q1, ("Toronto",), "qa")


def test_stated_when_every_passage_backs_its_step(retriever):
    out, _ = run(ScriptedReplies(replies=[GOOD_CHAIN, TRACE]), retriever, agreeing_reader())
    assert [n.support for n in out["nodes"]] == ["stated"] * 3
    assert [r.support for r in out["references"]] == ["stated"] * 3
    assert unstated_notes(out) == (out["final_content"], [])


def montreal_run(retriever):
    """The LLM says Kevin Drew was born in Montreal; the reader, unsure, cannot correct it."""
    wrong = GOOD_CHAIN.replace("[Answer 2]: Toronto.", "[Answer 2]: Montreal.")
    unsure = TableReader(
        {"p1": ("Kevin Drew", 3.0), "p2": ("Toronto", 1.2), "p3": ("Toronto Coach Terminal", 3.0)}
    )
    trace = "Drew [1] was born in Montreal [2], whose buses leave from the terminal [3]."
    return run(ScriptedReplies(replies=[wrong, trace]), retriever, unsure)[0]


def test_unstated_citation_is_marked_where_it_appears(retriever):
    out = montreal_run(retriever)
    assert [(n.source, n.support) for n in out["nodes"]] == [
        ("llm", "stated"),
        ("llm", "unstated"),  # the reader was unsure, so nothing corrected "Montreal."
        ("llm", "stated"),
    ]
    assert [r.support for r in out["references"]] == ["stated", "unstated", "stated"]
    content, notes = unstated_notes(out)
    assert content == (
        "Drew [1] was born in Montreal [2]†, whose buses leave from the terminal [3]."
    )
    assert notes == ["† passage [2] does not state: Montreal."]
    text = format_answer(out)
    assert "Montreal [2]†" in text and "† passage [2] does not state: Montreal." in text
    line = result_line(SPEC, get_method("searchain"), RECORD, out, UsageCounter(), 0.1)
    assert line["citations"] == {
        "cited": 3,
        "stated": 2,
        "unverifiable": 0,
        "inserted": 0,
        "steps": 3,
    }
    assert line["result"]["references"][1]["support"] == "unstated"  # the tree, for its page
    as_json = result_to_json(out)
    assert [r["support"] for r in as_json["references"]] == ["stated", "unstated", "stated"]
    assert as_json["nodes"][1]["support"] == "unstated"


def test_corrected_and_completed_steps_are_weighed_against_their_passage(retriever):
    wrong = GOOD_CHAIN.replace("[Answer 2]: Toronto.", "[Answer 2]: Montreal.")
    out, _ = run(ScriptedReplies(replies=[wrong, GOOD_CHAIN, TRACE]), retriever, agreeing_reader())
    corrected = out["nodes"][1]
    assert (corrected.source, corrected.support) == ("corrected", "stated")
    out, _ = run(
        ScriptedReplies(replies=[UNSOLVED, AFTER_UNSOLVED, TRACE]), retriever, agreeing_reader()
    )
    completed = out["nodes"][1]
    assert (completed.source, completed.support) == ("completed", "stated")


def test_a_completion_the_passage_does_not_state_is_unstated(retriever):
    """Issue 29, case 3: an LLM reader's made-up span completed the node and was "stated"."""
    guessing = TableReader({"p1": ("Kevin Drew", 3.0), "p2": ("Vancouver", 0.0)})
    out, _ = run(ScriptedReplies(replies=[UNSOLVED, AFTER_UNSOLVED, TRACE]), retriever, guessing)
    completed = out["nodes"][1]
    assert (completed.source, completed.answer) == ("completed", "Vancouver")
    assert completed.support == "unstated"
    assert out["references"][1].support == "unstated"


def test_an_empty_reader_answer_leaves_the_node_unsolved_and_is_counted(retriever):
    """Issue 29, case 3: reader "" completed the node with an empty, "stated" answer."""
    empty = TableReader({"p1": ("Kevin Drew", 3.0), "p2": ("", 0.0)})
    llm = ScriptedReplies(replies=[UNSOLVED, AFTER_UNSOLVED, TRACE])
    out, steps = run(llm, retriever, empty)
    assert steps[:5] == ["generate_coq", "traverse_nodes", "verify", "traverse_nodes", "complete"]
    node = out["nodes"][1]
    assert node.unsolved and (node.source, node.step, node.answer) == (None, None, "")
    asked_again = [n for n in out["nodes"] if n.query == node.query and n.step is not None]
    assert [(n.source, n.answer) for n in asked_again] == [("llm", "Toronto.")]
    assert "no_reader_answer" in out["format_failures"]
    assert 'found no answer to "Where was Kevin Drew born?"' in llm.calls[1][-1].text
    assert all(n.answer for n in out["nodes"] if n.step is not None)


def test_a_step_with_no_passage_is_unstated(passages):
    retriever = TableRetriever({Q1: passages["spirit"], Q3: passages["bus"]})  # Q2: nothing
    out, _ = run(ScriptedReplies(replies=[GOOD_CHAIN, TRACE]), retriever, agreeing_reader())
    assert out["nodes"][1].query == Q2 and out["nodes"][1].support == "unstated"
    assert [r.n for r in out["references"]] == [1, 3]  # no passage, no citation


def test_long_form_verdicts_use_rouge_l(passages):
    chain = "[Query 1]: Where was Kevin Drew born?\n[Answer 1]: {answer}"
    retriever = TableRetriever({"Where was Kevin Drew born?": passages["drew"]})
    unsure = TableReader({"p2": ("Toronto", 0.1)})
    for answer, support in [
        ("Kevin Drew was born in Toronto, in Ontario.", "stated"),
        ("Nobody can say anything about that singer.", "unstated"),
    ]:
        llm = ScriptedReplies(replies=[chain.format(answer=answer), "It is so [1]."])
        out, _ = run(llm, retriever, unsure, question="Why?", task="longform")
        assert out["nodes"][0].source == "llm" and out["nodes"][0].support == support
        assert out["references"][0].support == support


@pytest.fixture
def retriever(passages):
    return TableRetriever({Q1: passages["spirit"], Q2: passages["drew"], Q3: passages["bus"]})


def test_the_terminal_shows_every_citation_with_its_verdict(retriever):
    from searchain.cli.common import out as console
    from searchain.cli.render import show_result

    result = montreal_run(retriever)
    with console.capture() as captured:
        show_result(result)
    lines = captured.get().splitlines()
    assert "Drew [1] was born in Montreal [2]†, whose buses leave from the terminal [3]." in lines
    assert "† passage [2] does not state: Montreal." in lines
    assert "[1] Spirit If... (p1) · states its step" in lines
    assert "[2]† Kevin Drew (p2) · does not state its step" in lines
