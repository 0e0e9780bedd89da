"""The seven baselines Table 1 adds (Auto-CoT, Recite-and-answer, Least-to-Most, ToolFormer,
ReAct → CoT-SC, Tree-of-Thought with IR, DSP): control flow, loop bounds and malformed replies,
with scripted models over an in-memory retriever."""

from __future__ import annotations

import json

import pytest

from searchain.methods import get_method
from tests.conftest import ScriptedReplies
from tests.method_scripts import AUTO_COT_DEMOS
from tests.unit.nodes.baselines.test_baselines import QUESTION, Recorder, run
from tests.unit.test_injection import HOSTILE, assert_data_stays_inside


def auto_cot(replies, **settings):
    return run("auto-cot", replies, auto_cot_demos=str(AUTO_COT_DEMOS), **settings)


def test_auto_cot_shows_its_demonstrations_then_thinks_step_by_step():
    out, llm, retriever = auto_cot(["Drew is from Toronto.", " Toronto."])
    first = llm.calls[0][0].text
    assert first.startswith("Q: Who wrote the novel that the film Blade Runner was based on?\n")
    assert "written by Philip K. Dick. The answer is Philip K. Dick." in first
    assert first.endswith(f"Q: {QUESTION}\nA: Let's think step by step.")
    assert llm.calls[1][0].text.endswith("Therefore, the answer is")
    assert out["answer"] == "Toronto" and retriever.queries == [] and out["format_failures"] == []
    assert out["generation"] == "Drew is from Toronto. Therefore, the answer is Toronto."


def test_auto_cot_leaves_out_a_demonstration_of_the_question_asked(tmp_path):
    demos = json.loads(AUTO_COT_DEMOS.read_text())
    demos.append({"question": QUESTION, "rationale": "Drew is from Toronto.", "answer": "Toronto"})
    path = tmp_path / "demos.json"
    path.write_text(json.dumps(demos))
    _, llm, _ = run("auto-cot", ["x", " y"], auto_cot_demos=str(path))
    assert llm.calls[0][0].text.count(QUESTION) == 1  # only as the question asked


def test_auto_cot_without_or_with_broken_demonstrations_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="auto-cot needs its demonstrations"):
        run("auto-cot", [])
    broken = tmp_path / "broken.json"
    broken.write_text('[{"question": "q"}]')
    with pytest.raises(ValueError, match="must be a JSON list of objects with question"):
        run("auto-cot", [], auto_cot_demos=str(broken))
    with pytest.raises(ValueError, match="do not exist"):
        run("auto-cot", [], auto_cot_demos=str(tmp_path / "missing.json"))


def test_an_unreadable_auto_cot_answer_is_counted():
    out, _, _ = auto_cot(["I am not sure.", ""])
    assert out["answer"] == "" and out["format_failures"] == ["no_final_answer"]


def test_recite_and_answer_recites_each_path_and_votes():
    replies = []
    for city in ("Toronto", "Paris", "Toronto"):
        replies += [f"Kevin Drew (born in {city}) is a musician.", f" {city}"]
    out, llm, retriever = run("recite-and-answer", replies, sc_samples=3)
    assert out["answer"] == "Toronto" and retriever.queries == []
    assert len(llm.calls) == 6 and out["steps"] == 3
    recite, answer = llm.calls[0][0].text, llm.calls[1][0].text
    assert recite.endswith(
        f"Question: {QUESTION}\n\nThe answer to the above question can be found in the "
        "following Wikipedia passage:"
    )
    assert "<reference>\nKevin Drew (born in Toronto) is a musician.\n</reference>" in answer
    assert answer.endswith(f"Q: {QUESTION}\n\nA:")
    assert out["generation"] == "Kevin Drew (born in Toronto) is a musician. Toronto"


def test_a_recitation_stays_inside_its_block():
    out, llm, _ = run("recite-and-answer", [f"Drew {HOSTILE}", " X"], sc_samples=1)
    assert out["answer"] == "X"
    assert_data_stays_inside(llm.calls[1][0].text)


def test_least_to_most_answers_its_sub_questions_in_order_then_the_question():
    replies = [
        f' "Who is the performer of Spirit If...?", "Where was Kevin Drew born?", "{QUESTION}".',
        "The performer is Kevin Drew. The answer is Kevin Drew.",
        "Kevin Drew was born in Toronto. The answer is Toronto.",
        "The performer was born in Toronto. The answer is Toronto.",
    ]
    out, llm, retriever = run("least-to-most", replies)
    assert out["answer"] == "Toronto" and out["steps"] == 3 and retriever.queries == []
    assert llm.calls[0][0].text.endswith("we need to know:")
    second = llm.calls[2][0].text
    assert second.endswith("Q: Where was Kevin Drew born?\nA:")
    assert "Q: Who is the performer of Spirit If...?\nA: The performer is Kevin Drew." in second
    assert llm.calls[3][0].text.endswith(f"Q: {QUESTION}\nA:")  # asked once, last
    assert out["format_failures"] == []


def test_least_to_most_is_bounded_and_survives_a_decomposition_without_questions():
    many = ", ".join(f'"Question {i}?"' for i in range(10))
    out, llm, _ = run(
        "least-to-most",
        [f" {many}.", *[f"The answer is {i}." for i in range(3)]],
        ircot_max_steps=2,
    )
    assert len(llm.calls) == 1 + 2 + 1 and out["answer"] == "2"  # two sub-questions, then it
    out, llm, _ = run("least-to-most", [" I cannot say.", "It is Toronto."])
    assert len(llm.calls) == 2 and out["answer"] == "It is Toronto"
    assert out["format_failures"] == ["no_subquestions", "no_final_answer"]


def test_toolformer_searches_where_it_calls_and_completes_the_answer():
    replies = [' Kevin Drew, born in [WikiSearch("Kevin Drew birthplace"', " Toronto."]
    out, llm, retriever = run("toolformer", replies)
    assert retriever.queries == [("Kevin Drew birthplace", 1)]
    assert llm.stops[0] == ["\n", ")]"]
    second = llm.calls[1][0].text
    assert second.endswith(
        f'Output: Question: {QUESTION} Answer: Kevin Drew, born in [WikiSearch("Kevin Drew '
        'birthplace") → <reference>About Kevin Drew birthplace. Kevin Drew was born in '
        "Toronto.</reference>]"
    )
    assert out["answer"] == "Kevin Drew, born in Toronto" and out["steps"] == 2
    assert out["generation"] == 'Kevin Drew, born in [WikiSearch("Kevin Drew birthplace")] Toronto.'
    assert len(out["paragraphs"]) == 1 and out["format_failures"] == []


def test_toolformer_may_not_search_past_the_bound_and_counts_an_empty_call():
    replies = [' [WikiSearch("a"', ' [WikiSearch("b")] Toronto.']
    out, llm, retriever = run("toolformer", replies, ircot_max_steps=1)
    assert retriever.queries == [("a", 1)] and llm.stops[1] == ["\n"]
    assert out["answer"] == "Toronto"  # the second call is dropped from the answer
    out, _, retriever = run("toolformer", [' Toronto [WikiSearch("'])
    assert retriever.queries == [] and out["format_failures"] == ["invalid_action"]


def test_react_cot_sc_keeps_a_finished_react_answer():
    out, llm, _ = run("react-cot-sc", [" I know.\nAction 1: Finish[Toronto]"])
    assert out["answer"] == "Toronto" and len(llm.calls) == 1


def test_react_cot_sc_backs_off_to_cot_sc_at_the_step_bound():
    replies = [
        " Search.\nAction 1: Search[Kevin Drew]",
        " Again.\nAction 2: Search[Drew]",
        *[f"Drew sings. So the answer is: {c}." for c in ("Toronto", "Paris", "Toronto")],
    ]
    out, llm, retriever = run("react-cot-sc", replies, ircot_max_steps=2, sc_samples=3)
    assert out["answer"] == "Toronto" and len(llm.calls) == 5
    assert [q for q, _ in retriever.queries] == ["Kevin Drew", "Drew"]
    assert not any("Finish[" in call[0].text.splitlines()[-1] for call in llm.calls)  # not forced
    assert llm.stops[2:] == [["\n"]] * 3


def test_tot_expands_values_and_keeps_the_best_chains():
    replies = [
        "Spirit If... is by Kevin Drew.",  # step 1: two samples of the first sentence
        "Spirit If... is by Broken Social Scene.",
        " likely",
        " sure",
        # step 2: the two kept chains (the "sure" one first), two samples each
        "So the answer is: Toronto.",
        "He lives in Paris.",
        "So the answer is: Montreal.",
        "It is late.",
        " sure",
        " impossible",
        " likely",
        " what?",
    ]
    out, llm, retriever = run("tot", replies, tot_samples=2, tot_breadth=2, ircot_k=1)
    assert out["steps"] == 2 and out["answer"] == "Toronto" and len(llm.calls) == 12
    assert out["cot"] == ["Spirit If... is by Broken Social Scene.", "So the answer is: Toronto."]
    assert "<reasoning>Spirit If... is by Broken Social Scene.</reasoning>" in llm.calls[4][0].text
    # IR: the question, then every new sentence that does not state the answer
    assert [q for q, _ in retriever.queries] == [
        QUESTION,
        "Spirit If... is by Kevin Drew.",
        "Spirit If... is by Broken Social Scene.",
        "He lives in Paris.",
        "It is late.",
    ]
    assert out["format_failures"] == ["no_value"]


def test_tot_chains_keep_their_own_paragraphs_and_recall_is_the_answering_chains():
    """Issue 29, case 6: one pool served every candidate, so paragraphs fetched for pruned
    sentences were shown to the survivors and counted toward recall."""
    replies = [
        "Spirit If... is by Kevin Drew.",
        "Spirit If... is by Broken Social Scene.",
        " impossible",  # the Kevin Drew chain is pruned (breadth 1) ...
        " sure",
        "So the answer is: Toronto.",
        "It is late.",  # retrieves for itself, and is pruned too
        " sure",
        " likely",
    ]
    out, llm, retriever = run("tot", replies, tot_samples=2, tot_breadth=1, ircot_k=1)
    assert out["answer"] == "Toronto"
    titles = {p.title for p in out["paragraphs"]}
    # The base set (query 1) and the surviving sentence's paragraph (query 3), not those of
    # the pruned sentences (queries 2 and 4).
    assert len(retriever.queries) == 4
    assert titles == {"Title 1-0", "Title 3-0"}
    step2 = llm.calls[4][0].text
    assert "About Spirit If... is by Broken Social Scene." in step2
    assert "About Spirit If... is by Kevin Drew." not in step2  # ... and so are its paragraphs


def test_tot_answers_from_the_paragraphs_at_the_step_bound():
    replies = ["Drew sings.", "Drew plays.", " likely", " likely", "Toronto"]
    out, llm, _ = run("tot", replies, tot_samples=2, tot_breadth=1, ircot_max_steps=1)
    assert out["answer"] == "Toronto" and out["steps"] == 1 and len(llm.calls) == 5
    assert llm.calls[-1][0].text.rstrip().endswith("A:")  # IRCoT's Direct reader


def test_dsp_searches_twice_with_its_own_queries_then_answers():
    replies = [
        " who performs Spirit If....\nSearch Query: Spirit If... performer",
        " Spirit If... is by Kevin Drew.\nSearch Query: Kevin Drew birthplace",
        " Drew was born in Toronto.\nAnswer: Toronto",
    ]
    out, llm, retriever = run("dsp", replies, ircot_k=2)
    assert retriever.queries == [("Spirit If... performer", 2), ("Kevin Drew birthplace", 2)]
    assert out["queries"] == ["Spirit If... performer", "Kevin Drew birthplace"]
    first, hop, answer = (call[0].text for call in llm.calls)
    assert first.startswith("Write a search query that will help answer a complex question.")
    assert "<reference>" not in first
    assert "[1] «Title 1-0 | About Spirit If... performer." in hop
    assert answer.startswith("Answer questions with short factoid answers.")
    assert answer.count("«Title") == 4 and answer.endswith("Rationale: Let's think step by step.")
    assert out["answer"] == "Toronto" and len(out["paragraphs"]) == 4
    assert out["format_failures"] == []


def test_dsp_without_a_search_query_searches_the_question_and_counts_it():
    replies = ["I do not know.", "Still nothing.", "Toronto, I think."]
    out, _, retriever = run("dsp", replies, ircot_k=1)
    assert [q for q, _ in retriever.queries] == [QUESTION, QUESTION]
    assert out["format_failures"] == ["no_query", "no_query", "no_final_answer"]
    assert out["answer"] == "Toronto, I think"


@pytest.mark.parametrize("method", ["toolformer", "tot", "dsp"])
def test_their_retrieved_text_stays_inside_delimiters(method):
    hostile = Recorder(text=f"Kevin Drew was born in Toronto {HOSTILE}")
    replies = {
        "toolformer": [' [WikiSearch("Drew"', " X."],
        "tot": ["Drew sings.", " sure", "So the answer is: X.", " sure"],
        "dsp": ["\nSearch Query: Drew", "\nSearch Query: Toronto", "\nAnswer: X"],
    }[method]
    out, llm, _ = run(method, replies, retriever=hostile, tot_samples=1, tot_breadth=1)
    assert out["answer"]
    for call in llm.calls:
        assert_data_stays_inside(call[0].text)


def test_every_baseline_graph_is_bounded():
    for name in ("toolformer", "tot", "react-cot-sc"):
        graph = get_method(name).compiled()
        assert graph.config["recursion_limit"] <= 2 * (50 + 3) + 10, name
    llm = ScriptedReplies(replies=[' [WikiSearch("x"'] * 60)
    m = get_method("toolformer")
    out = m.compiled().invoke(
        {"question": QUESTION}, context=m.context(llm=llm, retriever=Recorder(), ircot_max_steps=3)
    )
    assert out["steps"] == 4  # three searches, then the forced completion
