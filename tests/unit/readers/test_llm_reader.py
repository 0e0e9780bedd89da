"""The ``llm`` reader: spans copied from the passage, and a confidence that says its scale.

A calibrated reader's confidence is the probability the model gave the span's tokens
(:func:`span_probability` over :func:`token_logprobs`); where that cannot be measured the reading
says ``calibrated=False`` and scores 0, instead of passing a self-rating off as a probability.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from searchain.text import normalize_answer
from searchain.tools.readers.llm import LLMReader, span_probability, token_logprobs
from searchain.tools.readers.resolve import resolve_reader
from searchain.tools.readers.span import passage_span
from searchain.types import Passage
from tests.conftest import ScriptedReplies

PASSAGES = [
    Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario."),
    Passage("p1", "Spirit If...", "Spirit If... is the debut album of Kevin Drew."),
]
LN = math.log


def tokens(*pairs: tuple[str, float]) -> list[tuple[str, float]]:
    return list(pairs)


# --- token_logprobs: OpenAI's chat format, as llama.cpp and OpenAI-compatible servers send it


def test_token_logprobs_reads_the_openai_chat_format():
    message = AIMessage(
        "Answer: Toronto",
        response_metadata={
            "logprobs": {
                "content": [
                    {"token": "Answer", "logprob": -0.1, "top_logprobs": []},
                    {"token": ":", "logprob": 0.0},
                    {"token": " Tor", "logprob": -0.5},
                    {"token": "onto", "logprob": -0.25},
                ]
            }
        },
    )
    assert token_logprobs(message) == [
        ("Answer", -0.1),
        (":", 0.0),
        (" Tor", -0.5),
        ("onto", -0.25),
    ]


@pytest.mark.parametrize(
    "metadata",
    [{}, {"logprobs": None}, {"logprobs": {}}, {"logprobs": {"content": []}}],
)
def test_token_logprobs_is_none_when_the_reply_has_none(metadata):
    assert token_logprobs(AIMessage("Answer: Toronto", response_metadata=metadata)) is None
    assert token_logprobs("not a message") is None


# --- span_probability


def test_a_multi_token_span_multiplies_its_tokens_probabilities():
    logprobs = tokens(
        ("Answer", LN(0.9)), (":", LN(1.0)), (" Kevin", LN(0.5)), (" Drew", LN(0.8)), ("\n", 0.0)
    )
    assert span_probability(logprobs, "Kevin Drew") == pytest.approx(0.5 * 0.8)


def test_a_span_split_inside_tokens_counts_every_token_it_touches():
    # "Toronto" is spelled " Tor" + "onto," : both tokens take part, nothing else does.
    logprobs = tokens(("Answer:", LN(0.9)), (" Tor", LN(0.6)), ("onto,", LN(0.5)), (" yes", -9.0))
    assert span_probability(logprobs, "Toronto") == pytest.approx(0.6 * 0.5)
    # One token holding the span and more.
    assert span_probability(tokens(("Answer: Paris.", LN(0.7))), "Paris") == pytest.approx(0.7)


def test_the_span_is_looked_for_after_answer_and_case_blind():
    # The span also occurs in an echo of the question before "Answer:"; that copy is not scored.
    logprobs = tokens(
        ("Where is Paris", LN(0.01)), ("?\n", 0.0), ("Answer:", 0.0), (" PARIS", LN(0.9))
    )
    assert span_probability(logprobs, "Paris") == pytest.approx(0.9)


def test_a_span_missing_from_the_reply_has_no_probability():
    logprobs = tokens(("Answer:", 0.0), (" Toronto", LN(0.9)))
    assert span_probability(logprobs, "Montreal") is None
    assert span_probability([], "Toronto") is None


# --- parse: the reading's confidence and whether it is calibrated


def test_a_calibrated_reading_is_the_span_probability():
    logprobs = tokens(("Answer:", 0.0), (" Toronto", LN(0.8)), ("\nConfidence: 0.1", 0.0))
    reading = LLMReader.parse(
        "Answer: Toronto\nConfidence: 0.1", PASSAGES[0].as_reference(), logprobs, calibrated=True
    )
    assert reading.answer == "Toronto" and reading.calibrated
    assert reading.confidence == pytest.approx(0.8)  # not the self-rating 0.1


@pytest.mark.parametrize(
    "logprobs",
    [None, [("Answer:", 0.0), (" Ontario", -0.1)]],
    ids=["no log-probabilities came back", "their tokens do not spell the span"],
)
def test_an_unmeasured_probability_says_so_and_never_passes_a_self_rating_off(logprobs):
    reading = LLMReader.parse(
        "Answer: Toronto\nConfidence: 0.99", PASSAGES[0].as_reference(), logprobs, calibrated=True
    )
    assert (reading.answer, reading.confidence, reading.calibrated) == ("Toronto", 0.0, False)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Answer: none\nConfidence: 0.9", ("", 0.0)),
        ("answer: toronto.\nconfidence: 7", ("toronto", 1.0)),
        ('Answer: "Kevin Drew"', ("Kevin Drew", 0.5)),
        ("Toronto", ("Toronto", 0.5)),
        ("", ("", 0.0)),
    ],
)
def test_an_uncalibrated_reading_is_the_self_rating_and_says_so(reply, expected):
    answer = LLMReader.parse(reply, "Kevin Drew was born in Toronto, Ontario.")
    assert (answer.answer, answer.confidence) == expected
    assert answer.calibrated is False


# --- the reader end to end on a chat model


class LogprobReplies(BaseChatModel):
    """Replies with a fixed text and its token log-probabilities when asked for them."""

    pieces: list[tuple[str, float]]
    asked: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "logprob-replies"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.asked.append(kw)
        text = "".join(t for t, _ in self.pieces)
        content = [{"token": t, "logprob": lp} for t, lp in self.pieces]
        meta = {"logprobs": {"content": content}} if kw.get("logprobs") else {}
        message = AIMessage(text, response_metadata=meta)
        return ChatResult(generations=[ChatGeneration(message=message)])


def test_a_calibrated_reader_asks_for_log_probabilities_and_scores_the_span():
    llm = LogprobReplies(pieces=[("Answer:", 0.0), (" Tor", LN(0.5)), ("onto", LN(0.5))])
    reader = LLMReader(llm, calibrated=True)
    [reading] = reader.read("Where was Kevin Drew born?", PASSAGES[:1])
    assert llm.asked[0]["logprobs"] is True
    assert reading.answer == "Toronto" and reading.calibrated
    assert reading.confidence == pytest.approx(0.25)


def test_llm_reader_takes_spans_from_the_passage():
    llm = ScriptedReplies(
        replies=["Answer: Toronto\nConfidence: 0.9", "Answer: Paris\nConfidence: 0.95"]
    )
    reader = resolve_reader("llm", llm)
    assert isinstance(reader, LLMReader) and not reader.calibrated
    answers = reader.read("Where was Kevin Drew born?", PASSAGES)
    assert (answers[0].answer, answers[0].confidence) == ("Toronto", 0.9)
    assert (answers[1].answer, answers[1].confidence) == ("Paris", 0.0)  # not in the passage
    assert not any(a.calibrated for a in answers)  # self-ratings, and said to be
    prompt = llm.calls[0][0].text
    assert (
        "<reference>\nKevin Drew: Kevin Drew was born in Toronto, Ontario.\n</reference>" in prompt
    )


def test_llm_reader_sees_at_most_the_first_part_of_a_huge_passage():
    llm = ScriptedReplies(replies=["Answer: Toronto\nConfidence: 0.9"])
    huge = Passage("x", "Kevin Drew", "Kevin Drew was born in Toronto. " + "filler " * 50_000)
    [answer] = resolve_reader("llm", llm).read("Where was Kevin Drew born?", [huge])
    assert (answer.answer, answer.confidence) == ("Toronto", 0.9)
    prompt = llm.calls[0][0].text
    assert "born in Toronto" in prompt and len(prompt) < 5_000


# --- the span inside a sentence the model wrote around it

SPAN_PASSAGE = "Kris Benson is married to Anna Benson. Carl Boese died on 6 July 1958 in Berlin."


@pytest.mark.parametrize(
    ("line", "query", "span"),
    [
        ("The spouse of Anna Benson is Kris Benson.", "What is the spouse of Anna Benson?",
         "Kris Benson"),
        ("The date of death of Carl Boese is 6 July 1958", "When did Carl Boese die?",
         "6 July 1958"),
        ("Kris Benson", "Who is Anna's spouse?", "Kris Benson"),
        ("The capital is Toronto.", "What is the capital?", "The capital is Toronto."),
    ],
)  # fmt: skip
def test_a_sentence_around_the_span_is_cut_to_the_span(line, query, span):
    assert passage_span(line, query, SPAN_PASSAGE) == span


def test_a_restated_question_reads_as_its_span_with_that_spans_probability():
    """The whole line was no span of the passage, so it scored 0 and never corrected."""
    reply = "The spouse of Anna Benson is Kris Benson."
    logprobs = tokens(("The spouse of Anna Benson is", 0.0), (" Kris", LN(0.5)), (" Benson.", 0.0))
    reading = LLMReader.parse(
        reply, SPAN_PASSAGE, logprobs, calibrated=True, query="What is the spouse of Anna Benson?"
    )
    assert (reading.answer, reading.calibrated) == ("Kris Benson", True)
    assert reading.confidence == pytest.approx(0.5)


@given(st.lists(st.sampled_from([*SPAN_PASSAGE.split(), "Toronto", "is", "the"]), max_size=12))
def test_the_span_is_the_line_or_words_of_it_that_the_passage_holds(words):
    line = " ".join(words)
    span = passage_span(line, "Who is it?", SPAN_PASSAGE)
    if span != line:
        assert span and span in line
        assert normalize_answer(span) in normalize_answer(SPAN_PASSAGE)
