"""Metrics against hand-computed cases."""

from __future__ import annotations

import pytest

from searchain.eval.metrics import (
    cover_em,
    exact_match,
    f1,
    label_accuracy,
    paragraph_recall,
    rouge_l_score,
)


@pytest.mark.parametrize(
    ("prediction", "answers", "expected"),
    [
        ("The final answer is Toronto Coach Terminal.", ["Toronto Coach Terminal"], 1.0),
        ("toronto coach-terminal", ["Toronto Coach Terminal"], 0.0),  # the hyphen joins words
        ("It was the Beatles.", ["Beatles"], 1.0),  # articles and punctuation removed
        ("U.S. Army", ["US Army"], 1.0),
        ("In 18445", ["1844"], 0.0),  # word boundaries
        ("Paris", ["Lyon", "Paris"], 1.0),  # aliases
        ("", ["Paris"], 0.0),
    ],
)
def test_cover_em(prediction, answers, expected):
    assert cover_em(prediction, answers) == expected


def test_exact_match_normalises():
    assert exact_match("The  Beatles!", ["beatles"]) == 1.0
    assert exact_match("Beatles band", ["beatles"]) == 0.0
    assert exact_match("an apple", ["Apple", "Pear"]) == 1.0


def test_f1_by_hand():
    # prediction tokens: kevin drew toronto; gold: kevin drew -> P 2/3, R 1, F1 0.8
    assert f1("Kevin Drew, Toronto", ["Kevin Drew"]) == pytest.approx(0.8)
    assert f1("Toronto", ["Kevin Drew"]) == 0.0
    assert f1("the", ["a"]) == 1.0  # both normalise to nothing
    assert f1("Kevin Drew Toronto", ["Montreal", "Kevin Drew Toronto"]) == 1.0
    # repeated tokens count once per match: pred "drew drew", gold "drew" -> P 1/2, R 1
    assert f1("drew drew", ["drew"]) == pytest.approx(2 / 3)


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
