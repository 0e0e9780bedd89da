"""Metrics against the official scripts' values on their edge cases, and hand-computed cases.

The expected EM/F1 values below are what the official HotpotQA (``hotpot_evaluate_v1.py``) and
MuSiQue (``metrics/answer.py``) scripts return for these pairs; ``_official_*`` transcribe those
scripts' functions line for line, and a property test holds ours equal to them on any text.
"""

from __future__ import annotations

import collections
import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.questions.metrics import (
    cover_em,
    cover_em_words,
    exact_match,
    f1,
    hotpotqa_em,
    hotpotqa_f1,
    label_accuracy,
    musique_em,
    musique_f1,
    paragraph_recall,
    rouge_l_score,
)


def _official_normalize(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def _official_hotpot_f1(prediction, ground_truth):
    normalized_prediction = _official_normalize(prediction)
    normalized_ground_truth = _official_normalize(ground_truth)
    special = ["yes", "no", "noanswer"]
    if normalized_prediction in special and normalized_prediction != normalized_ground_truth:
        return 0
    if normalized_ground_truth in special and normalized_prediction != normalized_ground_truth:
        return 0
    prediction_tokens = normalized_prediction.split()
    ground_truth_tokens = normalized_ground_truth.split()
    common = collections.Counter(prediction_tokens) & collections.Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def _official_musique_f1(a_gold, a_pred):
    gold_toks = _official_normalize(a_gold).split() if a_gold else []
    pred_toks = _official_normalize(a_pred).split() if a_pred else []
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


# (prediction, gold, HotpotQA EM, HotpotQA F1, MuSiQue EM, MuSiQue F1)
EDGE_CASES = [
    ("yes", "yes", 1, 1.0, 1, 1.0),
    ("yes", "no", 0, 0.0, 0, 0.0),
    ("yes it is", "yes", 0, 0.0, 0, 0.5),  # HotpotQA: a yes/no gold needs an equal prediction
    ("no", "no way", 0, 0.0, 0, 2 / 3),  # ... and a yes/no prediction an equal gold
    ("noanswer", "no answer", 0, 0.0, 0, 0.0),
    ("", "", 1, 0.0, 1, 1.0),  # both empty: HotpotQA finds no common token, MuSiQue agrees
    ("", "Paris", 0, 0.0, 0, 0.0),
    ("the", "a", 1, 0.0, 1, 1.0),  # articles only: both normalise to nothing
    ("\u201cHello\u201d", "Hello", 0, 0.0, 0, 0.0),  # typographic quotes are not punctuation
    ("Arthur\u2019s Magazine", "Arthur's Magazine", 0, 0.5, 0, 0.5),
    ("1994\u20131995", "1994-1995", 0, 0.0, 0, 0.0),  # an en dash stays, the hyphen goes
    ("The  Beatles!", "beatles", 1, 1.0, 1, 1.0),
    ("Kevin Drew, Toronto", "Kevin Drew", 0, 0.8, 0, 0.8),
    ("drew drew", "drew", 0, 2 / 3, 0, 2 / 3),
    ("U.S. Army", "US Army", 1, 1.0, 1, 1.0),
]


@pytest.mark.parametrize(("prediction", "gold", "h_em", "h_f1", "m_em", "m_f1"), EDGE_CASES)
def test_edge_cases_score_as_the_official_scripts(prediction, gold, h_em, h_f1, m_em, m_f1):
    assert hotpotqa_em(prediction, gold) == h_em
    assert hotpotqa_f1(prediction, gold) == pytest.approx(h_f1)
    assert musique_em(prediction, gold) == m_em
    assert musique_f1(prediction, gold) == pytest.approx(m_f1)
    assert _official_hotpot_f1(prediction, gold) == pytest.approx(h_f1)
    assert _official_musique_f1(gold, prediction) == pytest.approx(m_f1)


TEXT = st.lists(
    st.sampled_from([*"ab .,'-\u2019\u201c", "yes", "no", "noanswer", "the", "a", "An", "Yes!"]),
    max_size=8,
).map("".join)


@given(prediction=TEXT, gold=TEXT)
def test_equal_to_the_official_functions_on_any_text(prediction, gold):
    assert hotpotqa_f1(prediction, gold) == pytest.approx(_official_hotpot_f1(prediction, gold))
    assert musique_f1(prediction, gold) == pytest.approx(_official_musique_f1(gold, prediction))
    official_em = float(_official_normalize(prediction) == _official_normalize(gold))
    assert hotpotqa_em(prediction, gold) == musique_em(prediction, gold) == official_em


def test_styles_by_data_set():
    # MuSiQue: best over the aliases; HotpotQA/2Wiki: the single gold answer.
    assert exact_match("Big Apple", ["New York City", "Big Apple"]) == 1.0
    assert exact_match("Big Apple", ["New York City", "Big Apple"], style="hotpotqa") == 0.0
    assert f1("yes indeed", ["yes"], style="hotpotqa") == 0.0
    assert f1("yes indeed", ["yes"], style="musique") == pytest.approx(2 / 3)
    assert f1("anything", [], style="musique") == 0.0


@pytest.mark.parametrize(
    ("output", "answers", "papers", "words"),
    [
        ("The final answer is Toronto Coach Terminal.", ["Toronto Coach Terminal"], 1.0, 1.0),
        ("toronto coach-terminal", ["Toronto Coach Terminal"], 0.0, 0.0),  # hyphen joins words
        ("It was the Beatles.", ["Beatles"], 1.0, 1.0),
        ("In 18445", ["1844"], 1.0, 0.0),  # substring vs word boundaries
        ("Paris", ["Lyon", "Paris"], 1.0, 1.0),
        ("", ["Paris"], 0.0, 0.0),
        ("anything", [""], 0.0, 0.0),  # an empty gold covers nothing
    ],
)
def test_cover_em(output, answers, papers, words):
    assert cover_em(output, answers) == papers
    assert cover_em_words(output, answers) == words


def test_labels_and_rouge():
    assert label_accuracy("SUPPORTS", "supports") == 1.0
    assert label_accuracy("yes.", "no") == 0.0
    assert rouge_l_score("a b c d", "a b c d") == pytest.approx(1.0)
    assert rouge_l_score("", "a") == 0.0


def test_paragraph_recall():
    gold = [("A", "a"), ("B", "b")]
    assert paragraph_recall([("A", "a"), ("C", "c")], gold) == 0.5
    assert paragraph_recall([("A", "a"), ("B", "b"), ("A", "a")], gold) == 1.0
    assert paragraph_recall([], gold) == 0.0
    assert paragraph_recall([("A", "a")], []) == 0.0


def test_cover_em_does_not_count_the_question_echoed():
    asked = "Who is older, Kevin Drew or Brendan Canning?"
    echo = f"{asked} I am not sure."
    assert cover_em(echo, ["Brendan Canning"]) == 1.0  # the papers' plain definition
    assert cover_em(echo, ["Brendan Canning"], asked) == 0.0
    assert cover_em_words(echo, ["Brendan Canning"], asked) == 0.0
    answered = f"{asked} So the final answer is Brendan Canning."
    assert cover_em(answered, ["Brendan Canning"], asked) == 1.0
    assert cover_em_words(answered, ["Brendan Canning"], asked) == 1.0
    # words on either side of the cut are never joined into a match
    assert cover_em_words(f"Brendan {asked} Canning", ["Brendan Canning"], asked) == 0.0
