"""Answer and retrieval metrics, computed as the official evaluation scripts compute them.

* EM and F1 follow the official HotpotQA script (``hotpot_evaluate_v1.py``; 2WikiMultihopQA's
  script is the same) and MuSiQue's (``metrics/answer.py``), step for step: the same
  normalisation (:func:`searchain.text.squad_normalize`), HotpotQA's rule that a yes/no/noanswer
  prediction or gold scores F1 0 unless equal, MuSiQue's rule that an empty prediction or gold
  scores 1 only when both are empty, MuSiQue's maximum over the gold answer and its aliases.
* Cover-EM is the papers' metric: the normalised gold answer occurs in the normalised
  *generated output* (the whole text the method wrote, not only the extracted answer). It is
  also reported on the extracted answer, and, stricter, on word boundaries (``"1844"`` is not
  covered by ``"18445"``); reports name each. One deviation: a verbatim copy of the question in
  the output is not counted (an echoed comparison question names its own answer).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from searchain.text import contains_answer, normalize_answer, rouge_l, squad_normalize

_HOTPOT_SPECIAL = ("yes", "no", "noanswer")
OFFICIAL_STYLE = {"hotpotqa": "hotpotqa", "2wikimultihopqa": "hotpotqa", "musique": "musique"}
"""Which official script each data set's EM and F1 follow."""


def hotpotqa_em(prediction: str, gold: str) -> float:
    """HotpotQA's ``exact_match_score``."""
    return float(squad_normalize(prediction) == squad_normalize(gold))


def hotpotqa_f1(prediction: str, gold: str) -> float:
    """HotpotQA's ``f1_score`` (its first value), yes/no/noanswer rule included."""
    predicted, wanted = squad_normalize(prediction), squad_normalize(gold)
    if predicted != wanted and (predicted in _HOTPOT_SPECIAL or wanted in _HOTPOT_SPECIAL):
        return 0.0
    return _token_f1(predicted.split(), wanted.split(), empty=0.0)


def musique_em(prediction: str, gold: str) -> float:
    """MuSiQue's ``compute_exact``."""
    return float(squad_normalize(gold) == squad_normalize(prediction))


def musique_f1(prediction: str, gold: str) -> float:
    """MuSiQue's ``compute_f1``: an empty side scores 1 only when both are empty."""
    predicted, wanted = squad_normalize(prediction).split(), squad_normalize(gold).split()
    if not predicted or not wanted:
        return float(predicted == wanted)
    return _token_f1(predicted, wanted, empty=0.0)


def _token_f1(predicted: list[str], wanted: list[str], *, empty: float) -> float:
    common = sum((Counter(predicted) & Counter(wanted)).values())
    if not common:
        return empty
    precision, recall = common / len(predicted), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, answers: Sequence[str], style: str = "musique") -> float:
    """EM of ``style``'s official script; MuSiQue's takes the best over the aliases.

    HotpotQA and 2WikiMultihopQA have one gold answer, so their script scores the first.
    """
    if style == "hotpotqa":
        return hotpotqa_em(prediction, answers[0]) if answers else 0.0
    return max((musique_em(prediction, a) for a in answers), default=0.0)


def f1(prediction: str, answers: Sequence[str], style: str = "musique") -> float:
    """F1 of ``style``'s official script (see :func:`exact_match`)."""
    if style == "hotpotqa":
        return hotpotqa_f1(prediction, answers[0]) if answers else 0.0
    return max((musique_f1(prediction, a) for a in answers), default=0.0)


def cover_em(output: str, answers: Sequence[str], asked: str = "") -> float:
    """The papers' cover-EM: a normalised gold answer (or alias) occurs in the normalised output.

    Plain substring occurrence, as the papers compute it; an empty gold answer covers nothing.
    Where the output repeats the question ``asked`` word for word, that copy is not counted: a
    model that echoes "Who is older, A or B?" has not answered B.
    """
    pieces = _unasked(squad_normalize(output), squad_normalize(asked))
    return float(
        any((needle := squad_normalize(a)) and needle in piece for a in answers for piece in pieces)
    )


def cover_em_words(output: str, answers: Sequence[str], asked: str = "") -> float:
    """Cover-EM on word boundaries (the stricter option): "1844" is not in "18445"."""
    pieces = _unasked(normalize_answer(output), normalize_answer(asked))
    return float(any(contains_answer(piece, a) for a in answers for piece in pieces))


def _unasked(text: str, question: str) -> list[str]:
    """The parts of ``text`` (normalised) around every verbatim copy of ``question``."""
    return text.split(question) if question else [text]


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
