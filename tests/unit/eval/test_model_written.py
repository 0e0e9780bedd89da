"""Answer metrics read what the model wrote, never what searchain composed or prompted.

The scripted models here behave as weak models do: they cite nothing, never write "So the final
answer is", and say "no" outside any answer. Each test names the case of issue 29 it covers;
each failed on the code before it (the composed content, our own prompt and any stray "no" were
scored as the model's).
"""

from __future__ import annotations

from searchain.eval.runner import EvalSpec, result_line
from searchain.eval.usage import UsageCounter
from searchain.integrations import format_answer
from searchain.methods import get_method
from searchain.output import result_to_json
from searchain.questions.record import Record
from searchain.types import Passage
from tests.conftest import ScriptedReplies, TableReader, TableRetriever
from tests.unit.nodes.searchain.test_graph import run

QUESTION = "Who is older, Kevin Drew or Brendan Canning?"
Q1 = "When was Brendan Canning born?"
Q2 = "When was Kevin Drew born?"
CHAIN = f"""[Query 1]: {Q1}
[Answer 1]: 1969.
[Query 2]: {Q2}
[Answer 2]: 1976.
[Final Content]: Canning is older."""
RECORD = Record("musique", "q", QUESTION, ("Brendan Canning",), "qa")
SPEC = EvalSpec("musique", "report", "searchain", "scripted", "table", "embedded")


def retriever():
    return TableRetriever(
        {
            Q1: Passage("c", "Brendan Canning", "Brendan Canning was born in 1969."),
            Q2: Passage("d", "Kevin Drew", "Kevin Drew was born in 1976."),
        }
    )


def reader():
    return TableReader({"c": ("1969", 3.0), "d": ("1976", 3.0)})


def scored(out, record=RECORD, method="searchain"):
    return result_line(SPEC, get_method(method), record, out, UsageCounter(), 0.0)


def test_a_composed_content_is_shown_as_composed_and_never_scored():
    """Case 1: trace answered "Sorry."; the composed content scored cover-EM 1.0 (its
    sub-queries name Brendan Canning) with answer "1969"."""
    llm = ScriptedReplies(replies=[CHAIN, "Sorry."])
    out, _ = run(llm, retriever(), reader(), question=QUESTION)
    assert out["content_source"] == "composed" and out["model_content"] == "Sorry."
    assert "Brendan Canning" in out["final_content"]  # shown to the user, with citations ...
    assert out["answer"] == "1976" and out["answer_source"] == "path"
    line = scored(out)
    assert line["prediction"] == "" and line["generation"] == "Sorry."  # ... never scored
    assert line["metrics"]["cover_em"] == 0.0 and line["metrics"]["em"] == 0.0
    assert line["content_source"] == "composed"
    assert "no_final_answer" in line["format_failures"]
    text = format_answer(out)
    assert "Composed by searchain from the reasoning steps" in text and "'Sorry.'" in text
    assert "The model's reply had no final-answer line" in text
    assert result_to_json(out)["content_source"] == "composed"


def test_citations_searchain_inserted_are_not_the_models():
    """Case 1: "I cannot write that." gave {cited: 3, stated: 3}: perfect citations nobody wrote."""
    llm = ScriptedReplies(replies=[CHAIN, "I cannot write that."])
    out, _ = run(llm, retriever(), reader(), question=QUESTION)
    assert all(ref.inserted for ref in out["references"])
    assert scored(out)["citations"] == {
        "cited": 0,
        "stated": 0,
        "unverifiable": 0,
        "inserted": 2,
        "steps": 2,
    }


def test_the_models_own_cited_content_is_scored_as_written():
    trace = "Canning was born in 1969 [1] and Drew in 1976 [2], so Brendan Canning is older."
    out, _ = run(ScriptedReplies(replies=[CHAIN, trace]), retriever(), reader(), question=QUESTION)
    assert out["content_source"] == "model" and out["final_content"] == trace
    assert not any(ref.inserted for ref in out["references"])
    line = scored(out)
    assert line["metrics"]["cover_em"] == 1.0  # the model wrote the gold answer itself
    assert line["prediction"] == ""  # but stated no answer: EM reads none
    assert line["citations"]["cited"] == 2 and line["citations"]["inserted"] == 0


def test_the_final_content_is_never_a_prompt_of_ours():
    """Case 2: with nothing accepted, Trace took the last message — our feedback prompt, which
    restates the question — as the final content: cover-EM 1.0 with answer ""."""
    unsolved = f"[Unsolved Query]: {Q2}"
    llm = ScriptedReplies(replies=[unsolved, unsolved])
    out, _ = run(llm, retriever(), reader(), question=QUESTION, r_max=2, complete=False)
    assert out["stop_reason"] == "max_rounds" and not [n for n in out["nodes"] if n.step]
    assert out["final_content"] == unsolved  # the model's last reply
    assert "own knowledge" not in out["final_content"]
    line = scored(out)
    assert line["metrics"]["cover_em"] == 0.0


def test_no_reply_no_content():
    from searchain.nodes.searchain.trace import last_reply
    from searchain.state import State

    assert last_reply(State(question="q")) == ""


YESNO = Record("strategyqa", "y", "Does Kevin Drew live in Toronto?", ("no",), "yesno")


def test_a_stray_no_is_no_answer_in_searchain():
    """Case 5: 'Kevin Drew no longer lives in Toronto [1].' was read as the answer "no"."""
    chain = f"[Query 1]: {Q2}\n[Answer 1]: 1976.\n[Final Content]: Drew was born in 1976."
    trace = "Kevin Drew no longer lives in Toronto [1]."
    out, _ = run(ScriptedReplies(replies=[chain, trace]), retriever(), reader(), task="yesno")
    assert out["answer_source"] != "model"
    line = scored(out, YESNO)
    assert line["prediction"] == "" and line["metrics"]["accuracy"] == 0.0
    assert "no_final_answer" in line["format_failures"]


def test_a_stray_no_is_no_answer_in_a_baseline():
    """Case 5, without SearChain: "I do not know. There is no answer." scored as "no"."""
    method = get_method("direct")
    llm = ScriptedReplies(replies=["I do not know. There is no answer."])
    ctx = method.context(llm=llm, retriever=TableRetriever({}), ircot_demos="")
    out = method.compiled().invoke({"question": YESNO.question, "task": "yesno"}, context=ctx)
    line = result_line(SPEC, method, YESNO, out, UsageCounter(), 0.0)
    assert line["prediction"] == "" and line["metrics"]["accuracy"] == 0.0
    assert line["format_failures"] == ["no_final_answer"]


def test_a_model_off_the_point_scores_nothing_and_states_nothing():
    """A model that never cites, never states an answer, answers its steps with words any
    passage holds ("in", "it was") and echoes the question as its final content: no figure may
    read better than that. The question names the gold answer, so an echo covered it."""
    chain = (
        f"[Query 1]: {Q1}\n[Answer 1]: in\n[Query 2]: {Q2}\n[Answer 2]: it was\n"
        "[Final Content]: Hmm."
    )
    out, _ = run(ScriptedReplies(replies=[chain, QUESTION]), retriever(), TableReader({}),
                 question=QUESTION)  # fmt: skip
    assert [n.support for n in out["nodes"]] == ["unverifiable", "unverifiable"]
    line = scored(out)
    assert line["metrics"] == {
        "cover_em": 0.0,
        "cover_em_answer": 0.0,
        "cover_em_words": 0.0,
        "em": 0.0,
        "f1": 0.0,
    }
    assert line["citations"]["stated"] == 0 and line["citations"]["cited"] == 0


def test_a_model_that_writes_no_chain_is_told_in_words_with_what_to_try():
    """Issue 31: `no_chain` alone told a person nothing; the tool text, the CLI, MCP's notes and
    the page now say what happened and what to try."""
    llm = ScriptedReplies(replies=["I think it is Brendan Canning.", "Brendan Canning."])
    out, _ = run(llm, retriever(), reader(), question=QUESTION)
    assert out["stop_reason"] == "no_chain" and not out["nodes"]
    text = format_answer(out)
    assert "Asked to plan, the model wrote no chain of sub-questions" in text
    assert "nothing was retrieved or checked" in text and "the LLM openai:gpt-4o-mini" in text
    assert "--" not in text.partition("try a larger one")[2]  # not a flag: the chat reads it too
    later = ScriptedReplies(replies=[CHAIN, "Nonsense.", "Canning [1]."])
    other = TableRetriever({Q1: Passage("c", "Brendan Canning", "Canning was born in 1970.")})
    out, _ = run(later, other, TableReader({"c": ("1970", 3.0)}), question=QUESTION)
    assert out["stop_reason"] == "no_chain" and out["rounds"] == 2  # corrected, then no chain
    assert "In round 2, the model wrote no chain" in format_answer(out)
    assert "reasoning stopped with the steps before it" in format_answer(out)


def test_an_uncited_content_that_states_the_steps_is_kept_and_cited_not_composed():
    """Issue 66: a content the model wrote ("Lorenzo Monaco was influenced by … Giotto") was
    replaced by a composed one ("Who was Lorenzo Monaco? Giotto [1]") because it cited nothing."""
    written = "Canning was born in 1969 and Drew in 1976. Canning is older than Drew"
    out, _ = run(
        ScriptedReplies(replies=[CHAIN, written]), retriever(), reader(), question=QUESTION
    )
    assert out["content_source"] == "model"
    assert out["final_content"] == (
        "Canning was born in 1969 and Drew in 1976 [1][2]. Canning is older than Drew"
    )
    assert [ref.n for ref in out["references"]] == [1, 2]
    assert all(ref.inserted for ref in out["references"])  # cited by searchain, said so
    steps = {n.id: n for n in out["nodes"]}
    assert all(ref.support == steps[ref.node].support for ref in out["references"])  # verdicts
    line = scored(out)
    assert line["generation"] == written  # scored as the model wrote it, citations aside
