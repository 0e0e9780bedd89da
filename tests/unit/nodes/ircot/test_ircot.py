"""IRCoT's control flow with a scripted LLM over an in-memory retriever."""

from __future__ import annotations

import pytest

from searchain.context import Context
from searchain.graph.ircot import build_graph
from searchain.types import Passage
from tests.conftest import ScriptedReplies


class CountingRetriever:
    """Returns k fresh passages per query (ids derived from the query), recording queries."""

    def __init__(self, repeat_first: bool = False) -> None:
        self.queries: list[tuple[str, int]] = []
        self.repeat_first = repeat_first

    def search(self, query: str, k: int = 1) -> list[Passage]:
        self.queries.append((query, k))
        tag = "q0" if self.repeat_first else f"q{len(self.queries)}"
        return [Passage(f"{tag}-{i}", f"T{tag}{i}", f"text {query} {i}") for i in range(k)]


CHAT_NODES = ("receive", "reply")
"""The nodes every graph has to talk with a person (tested in tests/unit/test_chat.py)."""


def run(replies, retriever, **ctx):
    llm = ScriptedReplies(replies=replies)
    context = Context(llm=llm, retriever=retriever, reader="llm", **ctx)
    steps: list[str] = []
    out = None
    for mode, chunk in build_graph().stream(
        {"question": "Who influenced Lorenzo Monaco?"},
        context=context,
        stream_mode=["updates", "values"],
    ):
        if mode == "updates":
            steps.extend(name for name in chunk if name not in CHAT_NODES)
        else:
            out = chunk
    return out, steps, llm


def test_alternates_until_answer_is_then_answers_directly():
    retriever = CountingRetriever()
    out, steps, llm = run(
        [
            "Lorenzo Monaco trained in Florence. He followed",
            "Giotto influenced his style.",
            "So the answer is: Giotto.",
            "Giotto",
        ],
        retriever,
        ircot_k=2,
    )
    assert steps == ["ircot_retrieve", "ircot_reason"] * 3 + ["ircot_answer"]
    assert out["cot"] == [
        "Lorenzo Monaco trained in Florence.",
        "Giotto influenced his style.",
        "So the answer is: Giotto.",
    ]
    # The question first, then each new sentence (not the one that ends the reasoning).
    assert [q for q, _ in retriever.queries] == [
        "Who influenced Lorenzo Monaco?",
        "Lorenzo Monaco trained in Florence.",
        "Giotto influenced his style.",
    ]
    assert all(k == 2 for _, k in retriever.queries)
    assert len(out["paragraphs"]) == 6 and out["answer"] == "Giotto"
    # Reference format: paragraphs as Wikipedia Title blocks, then Q:, then A: and the CoT so far.
    second = llm.calls[1][0].text
    assert second.endswith(
        "Q: Who influenced Lorenzo Monaco?\nA: <reasoning>Lorenzo Monaco trained in Florence."
        "</reasoning>"
    )
    assert "<reference>\nWikipedia Title: Tq10\ntext Who influenced Lorenzo Monaco? 0\n" in second
    assert "Wikipedia Title: Tq31" in llm.calls[3][0].text  # the answer step reads them all
    assert llm.calls[3][0].text.endswith("A:")
    assert out["generation"].startswith("Lorenzo Monaco trained in Florence.")


def test_step_limit_forces_the_answer():
    out, steps, llm = run(
        ["Still thinking.", "Still thinking more.", "Giotto"],
        CountingRetriever(),
        ircot_max_steps=2,
    )
    assert out["steps"] == 2 and steps[-1] == "ircot_answer" and len(llm.calls) == 3
    assert out["answer"] == "Giotto"


def test_paragraph_cap_and_duplicates():
    out, _, _ = run(
        ["One.", "Two.", "Three.", "So the answer is X.", "X"],
        CountingRetriever(),
        ircot_k=4,
        ircot_max_paragraphs=7,
    )
    assert len(out["paragraphs"]) == 7
    out, _, _ = run(
        ["One.", "So the answer is X.", "X"], CountingRetriever(repeat_first=True), ircot_k=3
    )
    assert len(out["paragraphs"]) == 3  # the same passages twice count once


def test_cot_answer_step_extracts_the_stated_answer():
    out, _, _ = run(
        ["So the answer is Giotto.", "He trained with Giotto. So the answer is: Giotto."],
        CountingRetriever(),
        ircot_answer="cot",
    )
    assert out["answer"] == "Giotto" and out["format_failures"] == []
    # A CoT reply that never says "answer is" is answered by its whole line, and counted.
    out, _, _ = run(
        ["So the answer is Giotto.", "He trained with Giotto."],
        CountingRetriever(),
        ircot_answer="cot",
    )
    assert out["answer"] == "He trained with Giotto" and out["format_failures"] == [
        "no_final_answer"
    ]


def test_bad_ircot_settings():
    with pytest.raises(ValueError, match="ircot_answer must be direct or cot"):
        Context(ircot_answer="vote")
    with pytest.raises(ValueError, match="ircot_k must be between 0 and 50"):
        Context(ircot_k=-1)
    with pytest.raises(ValueError, match="ircot_max_paragraphs must be between 1 and 50"):
        Context(ircot_max_paragraphs=0)


def test_no_retrieval_answers_closed_book_at_once():
    """ircot_k = 0: the Direct baseline, one LLM call, no search at all."""
    retriever = CountingRetriever()
    out, steps, llm = run(["Giotto"], retriever, ircot_k=0)
    assert steps == ["ircot_answer"] and retriever.queries == []
    assert out["answer"] == "Giotto" and not out.get("paragraphs")
    assert out["format_failures"] == []  # Direct's reply is the answer itself
    assert "Wikipedia Title" not in llm.calls[0][0].text.split("Q: Who influenced")[-1]
    assert llm.calls[0][0].text.endswith("Q: Who influenced Lorenzo Monaco?\nA:")


def test_closed_book_cot_extracts_the_answer():
    out, steps, _ = run(
        ["Lorenzo trained in Florence. So the answer is: Giotto."],
        CountingRetriever(),
        ircot_k=0,
        ircot_answer="cot",
    )
    assert steps == ["ircot_answer"] and out["answer"] == "Giotto"


def test_one_step_retrieval_answers_after_the_first_search():
    """ircot_max_steps = 0: OneR, oner_k paragraphs for the question, then the answer."""
    retriever = CountingRetriever()
    out, steps, llm = run(["Giotto"], retriever, ircot_max_steps=0, ircot_k=1, oner_k=3)
    assert steps == ["ircot_retrieve", "ircot_answer"]
    assert retriever.queries == [("Who influenced Lorenzo Monaco?", 3)]
    assert len(out["paragraphs"]) == 3 and not out.get("cot") and len(llm.calls) == 1


def test_label_tasks_name_their_labels_in_the_answer_prompt():
    llm = ScriptedReplies(replies=["no"])
    out = build_graph().invoke(
        {"question": "Did Aristotle use a laptop?", "task": "yesno"},
        context=Context(llm=llm, retriever=CountingRetriever(), ircot_k=0),
    )
    assert "The answer must be one of: yes, no." in llm.calls[0][0].text
    assert out["answer"] == "no"


def test_blank_question_is_refused_before_any_call():
    llm = ScriptedReplies(replies=[])
    with pytest.raises(ValueError, match="question is empty"):
        build_graph().invoke(
            {"question": "  "}, context=Context(llm=llm, retriever=CountingRetriever(), ircot_k=0)
        )


def test_a_repeated_sentence_ends_the_reasoning():
    retriever = CountingRetriever()
    out, steps, llm = run(["Lorenzo was a monk.", "Lorenzo was a monk.", "Giotto"], retriever)
    assert out["steps"] == 2 and steps[-1] == "ircot_answer" and len(retriever.queries) == 2
    assert out["answer"] == "Giotto" and len(llm.calls) == 3


def test_a_sentence_with_an_abbreviation_is_one_query():
    """Generation is not stopped at "St." and the splitter keeps "St. Louis" whole."""
    retriever = CountingRetriever()
    _out, _, llm = run(
        ["He moved to St. Louis in 1904. Then he", "So the answer is: Giotto.", "Giotto"],
        retriever,
    )
    assert retriever.queries[1][0] == "He moved to St. Louis in 1904."
    assert llm.stops[0] == ["\n"]


def test_cot_answer_without_answer_is_returns_the_generation():
    out, _, _ = run(
        ["So the answer is: X.", "Giotto trained him"], CountingRetriever(), ircot_answer="cot"
    )
    assert out["answer"] == "Giotto trained him"


def test_near_duplicate_paragraphs_are_collected_once():
    class Repeating(CountingRetriever):
        def search(self, query, k=1):
            self.queries.append((query, k))
            n = len(self.queries)
            return [Passage(f"id{n}", "Giotto", "Giotto was a painter." + " He" * (n - 1))]

    out, _, _ = run(["One.", "So the answer is: X.", "X"], Repeating(), ircot_k=1)
    assert [p.id for p in out["paragraphs"]] == ["id1"]


def test_demonstrations_fit_the_token_budget_and_long_paragraphs_are_capped():
    from searchain.prompts.ircot import build_prompt, estimate_tokens, load_demos

    demos = load_demos("musique", leave_out="")
    long = Passage("p", "Long", "word " * 1000)
    small = build_prompt(style="cot", question="Q?", paragraphs=[long], demos=demos, budget=800)
    big = build_prompt(style="cot", question="Q?", paragraphs=[long], demos=demos, budget=6000)
    assert small.count("\nQ: ") < big.count("\nQ: ") <= len(demos) + 1
    assert estimate_tokens(small) <= 800 and estimate_tokens(big) <= 6000
    assert big.count("word") == 350  # the test paragraph, cut at 350 words
    assert demos[0].question in big and "So the answer is: " + demos[0].answer + "." in big


def test_delimiters_the_model_echoes_are_no_part_of_its_sentence():
    retriever = CountingRetriever()
    out, _, _ = run(
        ["<reasoning> He moved to Florence.</reasoning>", "So the answer is: Giotto.", "Giotto"],
        retriever,
    )
    assert out["cot"][0] == "He moved to Florence."
    assert retriever.queries[1][0] == "He moved to Florence."
    out, steps, _ = run(["<reasoning>", "</answer> Giotto"], CountingRetriever())
    assert out["cot"] == [""] and steps[-1] == "ircot_answer"  # nothing said: stop reasoning
    assert out["answer"] == "Giotto"
