"""Auto-CoT's demonstrations: one per cluster of tuning questions, each passing the heuristics."""

from __future__ import annotations

import json

import pytest

from searchain.eval.datasets import load_records
from searchain.methods import Setup
from searchain.methods.auto_cot import CLUSTERS, TRIES, build_auto_cot_demos
from searchain.tools.llms.scripted import ScriptedChatModel
from tests.conftest import require_module


@pytest.fixture(scope="module")
def questions(shared_data):
    require_module("sentence_transformers", "semantic")
    return [r.question for r in load_records(shared_data, "musique", "tune")]


class Counting(ScriptedChatModel):
    """The scripted model, counting its calls."""

    count: int = 0

    def _generate(self, *args, **kwargs):  # type: ignore[override]
        self.count += 1
        return super()._generate(*args, **kwargs)


def scripted(rationale: str, answer: str = " Paris.") -> Counting:
    return Counting(rules=[[r"step by step\.$", rationale], [r"the answer is$", answer]])


def test_one_demonstration_per_cluster_nearest_its_centre_first(questions):
    llm = scripted("The city is Paris. It is in France.")
    demos = build_auto_cot_demos(questions, llm)
    assert len(demos) == CLUSTERS and len({d["question"] for d in demos}) == CLUSTERS
    assert {d["question"] for d in demos} <= set(questions)
    assert all(d["rationale"] == "The city is Paris. It is in France." for d in demos)
    assert all(d["answer"] == "Paris" for d in demos) and llm.count == CLUSTERS * 2
    assert build_auto_cot_demos(questions, llm) == demos  # the same clusters every time


@pytest.mark.parametrize(
    "rationale",
    [
        " ".join(f"Step {i} is done." for i in range(6)),
        "Here are the steps:\n\n1. **Kenny G**\n2. **The Dance**\n3. Jazz\n4. More\n5. Even more",
    ],
)
def test_rationales_of_more_than_five_steps_are_refused_within_a_bounded_number_of_tries(
    questions, rationale
):
    llm = scripted(rationale)
    calls = []
    demos = build_auto_cot_demos(questions, llm, on_cluster=calls.append)
    assert demos == [] and calls == list(range(CLUSTERS))
    assert llm.count == CLUSTERS * TRIES * 2  # each try: the rationale, then the answer


def test_a_rationale_with_no_answer_after_it_is_refused(questions):
    llm = scripted("The city is Paris.", answer=" ")
    assert build_auto_cot_demos(questions, llm) == []  # not the answer "answer is"
    assert llm.count == CLUSTERS * TRIES * 2


def test_too_few_questions_is_one_clear_error():
    with pytest.raises(ValueError, match="give at least 8 questions, not 2"):
        build_auto_cot_demos(["a?", "b?", "a?"], scripted("x"))


def test_demonstrations_are_cached_whole(tmp_path):
    setup = Setup(None, None, "none", "lexical", "musique", "tuning", None, "m", tmp_path, list)
    built = []

    def build():
        built.append(1)
        return [{"question": "q", "rationale": "r", "answer": "a"}]

    path = setup.cached("auto-cot", build, 3)
    assert setup.cached("auto-cot", build, 3) == path
    assert built == [1] and json.loads(path.read_text())[0]["answer"] == "a"

    def broken():
        raise RuntimeError("the LLM went away")

    with pytest.raises(RuntimeError):
        setup.cached("auto-cot", broken, 4)
    assert list(path.parent.iterdir()) == [path]  # nothing half-written
