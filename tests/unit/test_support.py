"""The lexical verdict rule, pair by hand-labelled pair: stated, unstated or unverifiable.

Each row is (passage text, answer, reader span, query, the verdict a careful person gives *by
containment alone*): where containment proves nothing the rule must say ``unverifiable``, never
``stated``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.support import lexical_verdict, states
from searchain.tools.verifiers.lexical import LexicalVerifier
from searchain.types import Passage

DREW = "Kevin Drew was born in Toronto, Ontario."
BORN = "Where was Kevin Drew born?"
BSS = "Broken Social Scene was founded by Kevin Drew and Brendan Canning."
FOUNDED = "Who founded Broken Social Scene with Kevin Drew?"

PAIRS = [
    # stated: the answer (or a reader's span the answer holds) is in the text, not negated
    (DREW, "Toronto", "", BORN, "stated"),
    (DREW, "toronto.", "", BORN, "stated"),  # Verify's normalisation
    (DREW, "He was born in Toronto.", "Toronto", BORN, "stated"),  # the span, in the answer
    (DREW, "Toronto", "Ottawa", BORN, "stated"),  # the answer itself is there
    (DREW, "Toronto, Ontario", "", BORN, "stated"),
    ("Born on 3 March 1989 in Leeds.", "March 1989", "", "When was he born?", "stated"),
    ("He joined the Beatles in 1960.", "The Beatles", "", "Which band?", "stated"),
    ("Arthur's Magazine was a periodical.", "Arthur’s Magazine", "", "Which?", "stated"),
    (BSS, "Brendan Canning", "", FOUNDED, "stated"),
    ("Paris, not London, is the capital.", "Paris", "", "Which city is the capital?", "stated"),
    ("Drew was not born in Montreal but in Toronto.", "Toronto", "", BORN, "stated"),
    # unstated: not there, only a piece of a word, negated, or an empty answer
    (DREW, "He was born in Toronto.", "", BORN, "unstated"),  # the sentence is not there
    (DREW, "Montreal", "Toronto", BORN, "unstated"),
    (DREW, "Montreal", "Montreal", BORN, "unstated"),  # a made-up span vouches for nothing
    (DREW, "Tor", "", BORN, "unstated"),  # a piece of a word
    (DREW, "", "", BORN, "unstated"),
    (DREW, "He was not born in Toronto", "Toronto", BORN, "unstated"),  # the answer negates
    ("He moved to London in 1990.", "He lived on a farm", "on", "Where?", "unstated"),  # "on"
    ("Drew was not born in Montreal but in Toronto.", "Montreal", "", BORN, "unstated"),
    ("He never lived in Paris.", "Paris", "", "Where did he live?", "unstated"),
    ("He didn't win the Grammy.", "the Grammy", "", "Which award?", "unstated"),
    ("Paris, not London, is the capital.", "London", "", "Which city is it?", "unstated"),
    ("Neither Paris nor London hosted it.", "London", "", "Which city hosted it?", "unstated"),
    ("He was not born in Toronto.", "He was born in Toronto", "Toronto", BORN, "unstated"),
    # unverifiable: containment would prove nothing
    (DREW, "Kevin Drew", "", BORN, "unverifiable"),  # the query's own entity
    (BSS, "Kevin Drew", "", FOUNDED, "unverifiable"),
    ("Yes Minister is a British sitcom.", "yes", "", "Is Yes Minister a sitcom?", "unverifiable"),
    ("Yes Minister is a British sitcom.", "No", "", "Is it American?", "unverifiable"),
    ("The song reached number 1 in 1989.", "1", "", "Which chart place?", "unverifiable"),
    ("The album came out in 1989.", "1989", "", "When was it released?", "unverifiable"),
    ("The hall has 1,000 seats.", "1,000", "", "How many seats?", "unverifiable"),
    ("Yes Minister is a British sitcom.", "yes", "yes", "Is it a sitcom?", "unverifiable"),
    # an answer off the point, made of words any passage holds, is no statement either
    (DREW, "in", "", "Which city?", "unverifiable"),
    (DREW, "it was", "", "Which city?", "unverifiable"),
    (DREW, "in", "in", "Which city?", "unverifiable"),
]


@pytest.mark.parametrize(("passage", "answer", "reader", "query", "expected"), PAIRS)
def test_the_lexical_rule_on_hand_labelled_pairs(passage, answer, reader, query, expected):
    found = lexical_verdict(passage, answer, reader, query, long_form=False, alpha=0.35)
    assert found == expected


def test_the_table_covers_every_value_and_enough_pairs():
    assert len(PAIRS) >= 30
    assert {row[-1] for row in PAIRS} == {"stated", "unstated", "unverifiable"}


def test_the_title_is_not_read():
    """A title names a passage's subject: it states nothing about the query."""
    passage = Passage("p", "Kevin Drew", "He was born in Toronto.")
    verdict = LexicalVerifier().verdict(
        passage, "Who was born in Toronto?", "Kevin Drew", long_form=False, alpha=0.35
    )
    assert verdict == "unstated"


def test_long_form_answers_by_rouge_l_against_alpha():
    close = "Kevin Drew was born in Toronto, in Ontario."
    assert lexical_verdict(DREW, close, long_form=True, alpha=0.5) == "stated"
    far = "Nobody can say anything about him."
    assert lexical_verdict(DREW, far, long_form=True, alpha=0.5) == "unstated"
    assert lexical_verdict(DREW, close, long_form=True, alpha=0.99) == "unstated"


words = st.lists(st.sampled_from(["paris", "london", "was", "born", "in", "he"]), max_size=8)


@given(words, st.sampled_from(["not", "never", "no", "wasn't"]), words)
def test_a_mention_right_after_a_negation_is_never_a_statement(before, negation, after):
    text = " ".join([*before, negation, "Toronto", *after])
    if "toronto" not in " ".join(before + after).lower():
        assert not states(text, "Toronto")
