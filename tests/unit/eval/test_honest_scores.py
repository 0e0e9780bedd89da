"""Every method is scored on what it wrote, and never shown its own question's gold answer.

Two ways a table can flatter a method without any test failing: scoring text it was *shown*
(retrieved passages) as if it had written it, and few-shot demonstrations that include the very
question being evaluated (IRCoT's demonstrations come from each data set's tuning split).
"""

from __future__ import annotations

from importlib import resources

import pytest
from langchain_core.messages import BaseMessage
from pydantic import Field

from searchain.eval.datasets import DATASETS, load_records
from searchain.eval.runner import EvalSpec, result_line
from searchain.eval.usage import UsageCounter
from searchain.methods import METHODS
from searchain.prompts import task_names, task_prompt
from searchain.prompts.ircot import SHIPPED, load_demos
from searchain.questions.record import Record
from searchain.text import normalize_answer
from searchain.tools.llms.scripted import ScriptedChatModel
from searchain.types import Passage
from tests.conftest import TableReader
from tests.method_scripts import AUTO_COT_DEMOS, every_method_script

QUESTION = "Which city is the capital of France?"
GOLD = Passage("g1", "The city", "The city is Paris, the capital of France. It lies on the Seine.")


class Everywhere:
    """A retriever whose every result is the same passage (it holds the gold answer)."""

    def __init__(self, passage: Passage) -> None:
        self.passage = passage
        self.queries: list[str] = []

    def search(self, query: str, k: int = 1) -> list[Passage]:
        self.queries.append(query)
        return [self.passage]


class RecordingScripted(ScriptedChatModel):
    """The scripted model, keeping every prompt it was sent."""

    prompts: list[str] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args, **kwargs):  # type: ignore[override]
        self.prompts.append("\n".join(m.text for m in messages))
        return super()._generate(messages, *args, **kwargs)


def run(name: str, question: str, answer: str, **fields):
    method = METHODS[name]
    if method.name == "auto-cot":
        fields.setdefault("auto_cot_demos", str(AUTO_COT_DEMOS))
    llm = RecordingScripted(**every_method_script(answer))
    retriever = Everywhere(GOLD)
    ctx = method.context(llm=llm, retriever=retriever, reader=TableReader({}), **fields)
    out = method.compiled().invoke({"question": question, "task": method.task or "qa"}, context=ctx)
    return out, llm, retriever


@pytest.mark.parametrize("name", list(METHODS))
def test_a_method_is_scored_on_what_it_wrote_not_on_what_it_was_shown(name):
    """The passage holds the gold answer; the model answers wrong: cover-EM must be 0."""
    method = METHODS[name]
    out, _, retriever = run(name, QUESTION, "Berlin")
    record = Record("musique", "q", QUESTION, ("Paris",), "qa", ((GOLD.title, GOLD.text),))
    spec = EvalSpec("musique", "report", name, "scripted", "table", "embedded")
    line = result_line(spec, method, record, out, UsageCounter(), 0.0)
    assert line["prediction"] == "Berlin", line["prediction"]
    assert "Paris" not in line["generation"], line["generation"]
    assert line["metrics"]["cover_em"] == 0.0
    if method.uses_ir and name != "verify-and-edit":  # V&E searches only on an unsure vote
        assert retriever.queries, "the method was meant to be shown the gold passage"
        assert line["metrics"]["paragraph_recall"] == 1.0


def test_react_keeps_its_observations_in_the_transcript_but_not_in_its_words():
    out, llm, _ = run("react", QUESTION, "Berlin")
    assert "The city is Paris" in llm.prompts[-1]  # it was shown the passage ...
    assert out["generation"] == (
        "Thought 1: I search.\nAction 1: Search[the city] "
        "Thought 2: Found it.\nAction 2: Finish[Berlin]"
    )  # ... and is scored on its thoughts and actions only


@pytest.mark.parametrize("name", list(METHODS))
def test_no_prompt_shows_the_question_being_asked_as_a_demonstration(name):
    """The question asked is a tuning-split demonstration: it appears once, as the instance."""
    asked = load_demos("musique", leave_out="")[0]
    _, llm, _ = run(name, asked.question, "Berlin", ircot_demos="musique")
    assert llm.prompts
    for prompt in llm.prompts:
        assert prompt.count(f"Q: {asked.question}") <= 1, prompt  # Direct: Q:/A: pairs
        assert f"So the answer is: {asked.answer}." not in prompt  # CoT: its closing line
        assert not any(sentence in prompt for sentence in asked.cot)


def test_demonstrations_leave_out_only_the_question_asked():
    demos = load_demos("musique", leave_out="")
    kept = load_demos("musique", leave_out=f"  {demos[3].question.upper()} ")  # normalised
    assert [d.question for d in kept] == [d.question for d in demos if d is not demos[3]]
    assert load_demos("musique", leave_out="Some other question?") == demos


def test_no_question_of_the_shared_data_is_a_built_in_demonstration(shared_data):
    """The fixed few-shot prompts (Self-Ask, ReAct, Plan-and-Solve, the reader) show none of the
    evaluated questions, on either split; a Chain-of-Query prompt (the paper's figures: Fig. 9
    shows a FEVER tuning claim) never shows the question asked but as the question; IRCoT's
    demonstrations are tuning questions only, left out when asked (above)."""
    prompts = resources.files("searchain").joinpath("prompts")
    shown = {
        f.name: normalize_answer(f.read_text(encoding="utf-8"))
        for f in prompts.iterdir()
        if f.name.endswith(".toml")
    }
    assert {"chain_of_query.toml", "baselines.toml", "reader.toml"} <= set(shown)
    for dataset in DATASETS:
        for split in ("tune", "report"):
            for record in load_records(shared_data, dataset, split):
                asked = normalize_answer(record.question)
                found = [name for name, text in shown.items() if asked in text]
                assert found in ([], ["chain_of_query.toml"]), (dataset, record.question, found)
                for task in task_names():
                    prompt = normalize_answer(task_prompt(task).prompt(record.question))
                    assert prompt.count(asked) == 1, (dataset, split, record.question, task)
        reported = {
            normalize_answer(r.question) for r in load_records(shared_data, dataset, "report")
        }
        if dataset in SHIPPED:
            demos = load_demos(dataset, leave_out="")
            assert demos and not {normalize_answer(d.question) for d in demos} & reported
