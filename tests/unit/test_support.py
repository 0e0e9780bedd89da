"""The lexical verdict rule, pair by hand-labelled pair: stated, unstated or unverifiable.

Each row is (passage text, answer, reader span, query, the verdict a careful person gives *by
containment alone*): where containment proves nothing the rule must say ``unverifiable``, never
``stated``.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from searchain.support import is_consistent, lexical_verdict, states, taken_from
from searchain.tools.verifiers.lexical import LexicalVerifier
from searchain.types import Passage

DREW = "Kevin Drew was born in Toronto, Ontario."
BORN = "Where was Kevin Drew born?"
BSS = "Broken Social Scene was founded by Kevin Drew and Brendan Canning."
FOUNDED = "Who founded Broken Social Scene with Kevin Drew?"
TEXAS = "Paris, Texas is a city in Lamar County."

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
    # span plus extra: the reader's span is there, the rest of the answer must be too
    (DREW, "Toronto, Ontario", "Toronto", BORN, "stated"),
    (DREW, "born in Toronto", "Toronto", "Where?", "stated"),
    (
        "Spirit If... is the debut album of Kevin Drew.",
        "The performer of Spirit If... is Kevin Drew",
        "Kevin Drew",
        "Who is the performer of Spirit If...?",
        "stated",
    ),  # the query's words
    (
        "Spirit If... is the debut album of Kevin Drew.",
        "The singer of Spirit If... is Kevin Drew",
        "Kevin Drew",
        "Who is the performer of Spirit If...?",
        "unstated",
    ),
    (DREW, "Toronto in 1950", "Toronto", BORN, "unstated"),
    (DREW, "Toronto, Canada", "Toronto", BORN, "unstated"),
    (DREW, "Toronto, not Ontario", "Toronto", BORN, "unstated"),
    (
        "Drew was born in Toronto; he never lived in Ontario.",
        "Toronto, Ontario",
        "Toronto",
        BORN,
        "unstated",
    ),  # the extra word only under a negation
    # qualifiers
    (TEXAS, "Paris, France", "Paris", "Where is the film set?", "unstated"),
    (TEXAS, "Paris, Texas", "Paris", "Where is the film set?", "stated"),
    (TEXAS, "Paris, Texas, United States", "Paris", "Where is it set?", "unstated"),
    ("The first edition appeared in 1851.", "second edition", "edition", "Which?", "unstated"),
    # lists: every member must be there
    (DREW, "Toronto and Montreal", "Toronto", "Which cities?", "unstated"),
    (BSS, "Kevin Drew and Brendan Canning", "Brendan Canning", "Who founded it?", "stated"),
    (BSS, "Brendan Canning and Andrew Whiteman", "Brendan Canning", FOUNDED, "unstated"),
    # numbers with units keep their decimal point
    ("The trail is 35 km long.", "3.5 km", "", "How long?", "unstated"),
    ("The trail is 3.5 km long.", "3.5 km", "", "How long?", "stated"),
    ("The trail is 3.5 km long.", "35 km", "", "How long?", "unstated"),
    ("The trail is 3.50 km long.", "3.5 km", "", "How long?", "stated"),
    ("The rod is .5 m long.", "5 m", "", "How long?", "unstated"),  # a point with no 0 before it
    ("The rod is .5 m long.", "0.5 m", "", "How long?", "stated"),
    ("It rose to +40 degrees.", "40 degrees", "", "How hot?", "stated"),
    ("The deal was worth $15 billion.", "$1.5 billion", "", "How much?", "unstated"),
    ("The hall has 1,200 seats.", "1200 seats", "", "How many?", "stated"),
    ("The hall has 1200 seats.", "1,200 seats", "", "How many?", "stated"),
    ("The hall has 1,200 seats.", "12 seats", "", "How many?", "unstated"),
    # signs
    ("It fell to 40 degrees.", "-40 degrees", "", "How cold?", "unstated"),
    ("It fell to -40 degrees.", "40 degrees", "", "How cold?", "unstated"),
    ("It fell to −40 degrees.", "-40 degrees", "", "How cold?", "stated"),
    ("It ran from 1990-1995 in Leeds.", "1995 in Leeds", "", "Until when?", "stated"),
    # magnitudes
    ("The city has 1.2 million people.", "12 million", "", "How many?", "unstated"),
    ("The city has 12 million people.", "1.2 million", "", "How many?", "unstated"),
    ("The city has 1.2 million people.", "1.2 million", "", "How many?", "stated"),
    ("The city has 1.2 million people.", "1.2 billion", "", "How many?", "unstated"),
    # dates compared as dates
    ("Born on 3 March 1989 in Leeds.", "March 3, 1989", "", "When?", "stated"),
    ("Born on 3 March 1989 in Leeds.", "1989-03-03", "", "When?", "stated"),
    ("Born on March 3, 1989 in Leeds.", "3rd of March 1989", "", "When?", "stated"),
    ("Born on 3 March 1989 in Leeds.", "4 March 1989", "", "When?", "unstated"),
    ("Born in March 1989 in Leeds.", "3 March 1989", "", "When?", "unstated"),
    ("Born on 3 March 1989 in Leeds.", "March 1988", "", "When?", "unstated"),
    ("Born on 3 March 1989 in Leeds.", "1989 in Leeds", "", "When?", "stated"),  # the year
    ("Born in 1989 in Leeds.", "March 1989", "", "When?", "unstated"),
]


@pytest.mark.parametrize(("passage", "answer", "reader", "query", "expected"), PAIRS)
def test_the_lexical_rule_on_hand_labelled_pairs(passage, answer, reader, query, expected):
    found = lexical_verdict(passage, answer, reader, query, long_form=False, alpha=0.35)
    assert found == expected


def test_the_table_covers_every_value_and_enough_pairs():
    assert len(PAIRS) >= 70
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


VOCABULARY = [
    "paris",
    "toronto",
    "born",
    "in",
    "was",
    "not",
    "1950",
    "3.5",
    "-40",
    "km",
    "march",
    "1989",
    "million",
    "and",
    "france",
    "he",
    "of",
]
phrases = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6).map(" ".join)


@given(phrases, phrases, phrases, phrases, st.sampled_from(VOCABULARY), st.integers(0, 6))
def test_a_word_the_passage_does_not_hold_never_makes_an_answer_stated(
    passage, answer, span, query, word, at
):
    """Adding to an answer a word the passage lacks can never turn ``unstated`` into ``stated``."""
    assume(not states(passage, word))
    before = lexical_verdict(passage, answer, span, query, long_form=False, alpha=0.35)
    words = answer.split()
    longer = " ".join([*words[:at], word, *words[at:]])
    after = lexical_verdict(passage, longer, span, query, long_form=False, alpha=0.35)
    assume(before == "unstated")
    assert after != "stated"


@pytest.mark.parametrize(
    ("llm", "reader", "agree"),
    [
        ("3.5 km", "3.5 km", True),
        ("3.5 km", "35 km", False),
        ("-40 degrees", "40 degrees", False),
        ("1.2 million", "12 million", False),
        ("It has 1,200 seats", "1200", True),
        ("3 March 1989", "March 1989", True),
        ("March 1989", "3 March 1989", False),
        ("Toronto.", "Toronto", True),
    ],
)
def test_verify_agreement_keeps_numbers_and_dates(llm, reader, agree):
    """A reader's "35 km" is no agreement with the LLM's "3.5 km": Verify corrects it."""
    passage = "Some passage."
    assert is_consistent(llm, reader, passage, long_form=False, alpha=0.35) is agree


def test_the_rejudging_benchmark_counts_stored_and_current_verdicts(tmp_path):
    """benchmarks/verdicts.py: a step judged `stated` by an older rule is counted as now."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    passage = {"id": "p", "title": "Trail", "text": "The trail is 3.5 km long."}
    node = {"step": 1, "query": "How long is the trail?", "answer": "35 km",
            "reader_answer": "", "support": "stated", "passage": passage}  # fmt: skip
    results = tmp_path / "run.jsonl"
    results.write_text(json.dumps({"config": {}, "result": {"nodes": [node]}}) + "\n")
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "verdicts.py"
    done = subprocess.run([sys.executable, str(script), str(results)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "stated:    1 stored →    0 now" in done.stdout
    assert "unstated:    0 stored →    1 now" in done.stdout
    assert "changed stated → unstated: 'How long is the trail?' → '35 km'" in done.stdout


@pytest.mark.parametrize(
    ("span", "text", "taken"),
    [
        ("3.5 km", "The trail is 3.5 km long.", True),
        ("3.5 km", "The trail is 35 km long.", False),  # a made-up span is no evidence
        ("-40", "It fell to 40 degrees.", False),
        ("1,200", "The hall has 1200 seats.", True),
        ("March 1989", "Born on 3 March 1989.", True),
        ("Toron", "Born in Toronto.", True),  # extractive readers cut mid-word
        ("Ottawa", "Born in Toronto.", False),
    ],
)
def test_a_readers_span_counts_as_evidence_only_when_cut_from_the_passage(span, text, taken):
    assert taken_from(span, text) is taken
