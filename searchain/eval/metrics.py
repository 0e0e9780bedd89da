"""Answer and retrieval metrics of the SearChain and IRCoT papers.

All answer metrics take the best score over the gold answer and its aliases, after SQuAD
normalisation (:func:`searchain.text.normalize_answer`, shared with Verify so "matches" means the
same thing everywhere).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from searchain.text import contains_answer, normalize_answer, rouge_l


def cover_em(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when a normalised gold answer (or alias) occurs in the normalised prediction.

    The papers' main metric. Occurrence is on word boundaries ("1844" is not covered by
    "18445"), as in Verify.
    """
    return float(any(contains_answer(prediction, answer) for answer in answers))


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer."""
    predicted = normalize_answer(prediction)
    return float(any(predicted == normalize_answer(answer) for answer in answers))


def f1(prediction: str, answers: Sequence[str]) -> float:
    """SQuAD token F1, best over the gold answers."""
    predicted = normalize_answer(prediction).split()
    best = 0.0
    for answer in answers:
        gold = normalize_answer(answer).split()
        if not predicted or not gold:
            best = max(best, float(predicted == gold))
            continue
        common = sum((Counter(predicted) & Counter(gold)).values())
        if common:
            precision, recall = common / len(predicted), common / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def label_accuracy(prediction: str, label: str) -> float:
    """1.0 when a yes/no or SUPPORTS/REFUTES prediction names the gold label."""
    return float(normalize_answer(prediction) == normalize_answer(label))


def rouge_l_score(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure for long-form answers."""
    return rouge_l(prediction, reference)


def paragraph_recall(
    retrieved: Iterable[tuple[str, str]], gold: Iterable[tuple[str, str]]
) -> float:
    """Share of the gold ``(title, text)`` paragraphs among the retrieved ones (IRCoT's metric)."""
    wanted = set(gold)
    if not wanted:
        return 0.0
    return len(wanted & set(retrieved)) / len(wanted)
