"""The chat reply says what the verdict below it says, quotes the sentence that matters, and
shows the model's text as text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from searchain.chat_markdown import excerpt, md, step_source
from searchain.state import TreeNode


def node(**fields) -> TreeNode:
    return TreeNode(id=0, branch=0, parent=None, query="Who influenced him?", **fields)


def test_a_kept_answer_says_what_its_passage_verdict_is():
    """It said "the model's answer, no passage said otherwise" above "[1] … does not state the
    step's answer"."""
    unstated = step_source(node(source="llm", answer="Giotto", support="unstated"))
    assert "no passage said otherwise" not in unstated
    assert unstated == (
        "the model's answer: its passage does not state it, and the reader was not confident "
        "enough to correct it"
    )
    assert step_source(node(source="llm", support="stated")).endswith("its passage states it")
    assert step_source(node(source="llm")).endswith("not checked against a passage")
    assert step_source(node(source="corrected", support="stated")) == "corrected from the passage"


def test_the_quote_is_the_sentence_closest_to_the_step_when_none_states_it():
    text = (
        "Lorenzo Monaco was an Italian painter of the late Gothic. " * 5
        + "He was influenced by the Sienese school and trained in Florence."
    )
    quoted = excerpt(text, "Giotto", "Who was Lorenzo Monaco influenced by?")
    assert quoted.startswith("…He was influenced by the Sienese school")
    assert excerpt(text, "Gothic", "q").startswith("Lorenzo Monaco was")  # the answer's own


def test_the_models_markup_is_shown_as_typed_and_citations_stay():
    escaped = md("[Final Content]: He was *born* in <b>1844</b> [1] and [2]†")
    assert escaped == r"\[Final Content\]: He was \*born\* in \<b\>1844\</b\> [1] and [2]†"


@given(st.text())
def test_escaping_leaves_no_markup_character_bare(text):
    escaped = md(text)
    bare = escaped.replace("\\\\", "")
    for char in "*_`<>#|~":
        assert all(bare[i - 1] == "\\" for i, c in enumerate(bare) if c == char and i > 0)
        assert not bare.startswith(char)
