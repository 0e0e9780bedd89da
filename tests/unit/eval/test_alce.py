"""ALCE's citation recall and precision, by hand, with an entailment judge we control."""

from __future__ import annotations

import pytest

from searchain.eval.alce import alce_scores
from searchain.state import Reference

REFS = [Reference(n, n, f"p{n}", f"T{n}", text) for n, text in [(1, "A."), (2, "B."), (3, "C.")]]


def judge(table: dict[tuple[str, str], bool]):
    """Entailment by table: (the cited texts joined, the sentence) → entailed; else not."""
    calls = []

    def entails(pairs):
        calls.extend(pairs)
        results = []
        for premise, hypothesis in pairs:
            texts = "+".join(line for line in premise.splitlines() if not line.startswith("Title"))
            results.append(table.get((texts, " ".join(hypothesis.split())), False))
        return results

    return entails, calls


@pytest.mark.parametrize(
    ("content", "table", "recall", "precision"),
    [
        # One sentence, one citation that entails it: both 1.
        ("X is so [1].", {("A.", "X is so ."): True}, 1.0, 1.0),
        # A sentence citing nothing has recall 0 and adds no citation.
        ("X is so [1]. Y is so.", {("A.", "X is so ."): True}, 0.5, 1.0),
        # Two citations that together entail: one needed (alone it entails), one over-cited
        # (alone it does not, and the other without it still entails).
        (
            "Z [1][2].",
            {("A.+B.", "Z ."): True, ("A.", "Z ."): True, ("B.", "Z ."): False},
            1.0,
            0.5,
        ),
        # Two citations both needed: neither entails alone, nor does either without the other.
        ("Z [1][2].", {("A.+B.", "Z ."): True}, 1.0, 1.0),
        # Not entailed jointly: recall 0 and both citations imprecise.
        ("Z [1][3].", {}, 0.0, 0.0),
        # No citation at all: precision 0, as ALCE counts it.
        ("Nothing cited.", {}, 0.0, 0.0),
        ("", {}, 0.0, 0.0),
    ],
)
def test_alce_scores_by_hand(content, table, recall, precision):
    entails, _ = judge(table)
    assert alce_scores(content, REFS, entails) == {"recall": recall, "precision": precision}


def test_each_premise_and_sentence_is_judged_once():
    entails, calls = judge({("A.", "X ."): True})
    alce_scores("X [1]. X [1].", REFS, entails)
    assert calls == [("Title: T1\nA.", "X .")]
