"""DSP's Demonstrate stage: the program bootstraps its demonstrations from tuning questions.

Issue 29, case 7: DSP's demonstrations were bare question/answer pairs; the paper keeps the
training examples its own program answers right, with every stage's intermediate outputs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest

from searchain.methods import Setup, get_method
from searchain.methods.dsp import bootstrap_dsp_demos
from searchain.questions.record import Record
from tests.conftest import ScriptedReplies
from tests.unit.nodes.baselines.test_baselines import QUESTION, Recorder

RIGHT = Record("musique", "t1", "Who wrote Spirit If...?", ("Kevin Drew",), "qa")
WRONG = Record("musique", "t2", "Where is Toronto?", ("Ontario",), "qa")
PROGRAM = [
    " who wrote it.\nSearch Query: Spirit If... author",
    " it is by Kevin Drew.\nSearch Query: Kevin Drew",
    " The album is by Kevin Drew.\nAnswer: Kevin Drew",
]


def context(llm, **fields):
    return get_method("dsp").context(llm=llm, retriever=Recorder(), ircot_demos="", **fields)


def test_only_questions_the_program_gets_right_become_demonstrations():
    wrong = [*PROGRAM[:2], " It is in Quebec.\nAnswer: Quebec"]
    llm = ScriptedReplies(replies=PROGRAM + wrong)
    demos = bootstrap_dsp_demos([RIGHT, WRONG], context(llm), llm)
    assert len(llm.calls) == 6  # the program ran on both ...
    assert [d["question"] for d in demos] == [RIGHT.question]  # ... and one was right
    stages = demos[0]["stages"]
    assert [s["output"] for s in stages] == ["Spirit If... author", "Kevin Drew", "Kevin Drew"]
    assert stages[0] == {"context": "", "rationale": "who wrote it.", "output": stages[0]["output"]}
    assert stages[1]["context"].startswith("[1] «Title 1-0 | About Spirit If... author.")
    assert stages[2]["rationale"] == "The album is by Kevin Drew."


def test_bootstrapping_stops_at_enough_and_is_bounded():
    llm = ScriptedReplies(replies=PROGRAM)
    assert len(bootstrap_dsp_demos([RIGHT, WRONG], context(llm), llm, want=1)) == 1
    assert len(llm.calls) == 3  # the second question never ran
    llm = ScriptedReplies(replies=PROGRAM)
    assert bootstrap_dsp_demos([WRONG, RIGHT], context(llm, dsp_bootstrap=1), llm) == []
    assert len(llm.calls) == 3  # one question tried, the bound


def test_an_unreadable_stage_is_no_demonstration():
    llm = ScriptedReplies(replies=["no query here", *PROGRAM[1:]])
    assert bootstrap_dsp_demos([RIGHT], context(llm), llm) == []


def test_each_stage_shows_the_bootstrapped_fields_of_that_stage(tmp_path):
    bootstrap = ScriptedReplies(replies=PROGRAM)
    demos = bootstrap_dsp_demos([RIGHT], context(bootstrap), bootstrap)
    path = tmp_path / "dsp.json"
    path.write_text(json.dumps(demos))
    llm = ScriptedReplies(replies=PROGRAM)
    out = (
        get_method("dsp")
        .compiled()
        .invoke({"question": QUESTION}, context=context(llm, dsp_demos=str(path)))
    )
    first, hop, answer = (call[0].text for call in llm.calls)
    assert (
        f"Question: {RIGHT.question}\nRationale: Let's think step by step. To answer this "
        "question, we first need to find out who wrote it.\nSearch Query: Spirit If... author"
    ) in first
    assert "Context:\n[1] «Title 1-0 | About Spirit If... author." in hop
    assert "learned the following. it is by Kevin Drew.\nSearch Query: Kevin Drew" in hop
    assert "step by step. The album is by Kevin Drew.\nAnswer: Kevin Drew" in answer
    assert out["answer"] == "Kevin Drew"
    # The demonstration of the question asked is never shown.
    llm = ScriptedReplies(replies=PROGRAM)
    get_method("dsp").compiled().invoke(
        {"question": RIGHT.question}, context=context(llm, dsp_demos=str(path))
    )
    assert llm.calls[0][0].text.count(RIGHT.question) == 1


def test_broken_or_missing_demonstrations_are_one_clear_error(tmp_path):
    llm = ScriptedReplies(replies=[])
    graph = get_method("dsp").compiled()
    with pytest.raises(ValueError, match="do not exist"):
        graph.invoke({"question": "q"}, context=context(llm, dsp_demos=str(tmp_path / "x.json")))
    broken = tmp_path / "broken.json"
    broken.write_text('[{"question": "q"}]')
    with pytest.raises(ValueError, match="stages of context, rationale and output"):
        graph.invoke({"question": "q"}, context=context(llm, dsp_demos=str(broken)))


def test_caches_key_on_the_model_that_ran(tmp_path):
    """Issue 29, case 8: the Auto-CoT cache was keyed on "auto"."""
    model = "local sha:1"
    setup = Setup(None, None, "none", "lexical", "musique", "tuning", None, model, tmp_path, list)
    other = replace(setup, model="openai:gpt-4o-mini")

    def nothing() -> list:
        return []

    assert setup.cached("dsp", nothing, 1) != other.cached("dsp", nothing, 1)
    assert setup.cached("dsp", nothing, 1) == setup.cached("dsp", nothing, 1)
    assert setup.cached("auto-cot", nothing, 3).parent.name == "auto-cot"
    # Where the caches of earlier releases are: the same files are found again.
    digest = hashlib.sha256(b"local sha:1 1 None tuning 24").hexdigest()[:12]
    found = setup.cached("dsp", nothing, 1, None, "tuning", 24)
    assert found == tmp_path / "dsp" / f"musique-{digest}.json"


def test_two_registered_methods_of_one_name_are_refused():
    from searchain.methods import _by_name

    dsp = get_method("dsp")
    with pytest.raises(ValueError, match=r"two methods in .*REGISTRY are named 'dsp'"):
        _by_name([dsp, get_method("oner"), dsp])
    assert list(_by_name([dsp, get_method("oner")])) == ["dsp", "oner"]
