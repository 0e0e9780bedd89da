"""Answer normalisation and the consistency checks that decide Verify.

One definition serves Verify, the final-answer extraction and (later) the evaluation metrics, so
"the reader agrees with the LLM" and "the prediction matches the gold answer" can never drift apart.
"""

from __future__ import annotations

import re
import string
from functools import cache
from typing import Any

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_TYPOGRAPHIC = str.maketrans("", "", "‘’“”–—")


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and its noun, singular for one: ``1 passage``, ``2,048 passages``, ``0 queries``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def clean_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates replaced by U+FFFD, so it can be stored and sent.

    They arrive from model replies, JSON surrogate escapes and undecodable command-line bytes;
    no checkpoint, message or JSON encoder accepts them.
    """
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def squad_normalize(text: str) -> str:
    """The official SQuAD/HotpotQA/MuSiQue normalisation, step for step.

    Lower case, ASCII punctuation removed, articles removed, single spaces. Typographic quotes
    and dashes are *not* punctuation here (``string.punctuation`` is ASCII), so the metrics that
    must match the official scripts use exactly this.
    """
    text = "".join(ch for ch in text.lower() if ch not in _ASCII_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def normalize_answer(text: str) -> str:
    """:func:`squad_normalize`, typographic quotes and dashes removed too.

    Used wherever two texts are compared for meaning (Verify, dedup, final-answer extraction):
    a model's "Arthur’s" and a passage's "Arthur's" are the same answer.
    """
    return squad_normalize(text.translate(_TYPOGRAPHIC))


def occurs_in(span: str, text: str) -> bool:
    """Whether a reader's ``span`` was taken from ``text`` (normalised; a word piece counts).

    Extractive readers cut spans out of the passage, sometimes mid-word; a span found nowhere in
    it was made up (an LLM reader's guess, or text steering it), and is no evidence.
    """
    needle = normalize_answer(span)
    return bool(needle) and needle in normalize_answer(text)


def contains_answer(prediction: str, answer: str) -> bool:
    """Whether the normalised ``answer`` occurs in the normalised ``prediction`` on word bounds.

    An empty answer is contained nowhere: a reader that extracted nothing cannot vouch for or
    against the LLM.
    """
    needle = normalize_answer(answer)
    if not needle:
        return False
    return f" {needle} " in f" {normalize_answer(prediction)} "


@cache
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure between two texts (0 when either is empty)."""
    if not prediction.strip() or not reference.strip():
        return 0.0
    return float(_rouge_scorer().score(reference, prediction)["rougeL"].fmeasure)


_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "mt",
        "ft",
        "jr",
        "sr",
        "sen",
        "rep",
        "gov",
        "gen",
        "col",
        "lt",
        "maj",
        "sgt",
        "capt",
        "cmdr",
        "adm",
        "rev",
        "hon",
        "pres",
        "inc",
        "ltd",
        "co",
        "corp",
        "bros",
        "dept",
        "univ",
        "assn",
        "est",
        "approx",
        "vs",
        "etc",
        "al",
        "ca",
        "cf",
        "eg",
        "ie",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "fig",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "ave",
        "blvd",
        "rd",
    ]
)
_SENTENCE_END = re.compile(r"""[.!?]+["')\]]*(?=\s+["'(\[]?[A-Z0-9])""")


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentences, not at abbreviations ("St. Louis"), initials or "U.S.".

    A sentence ends at ``.``, ``!`` or ``?`` (with any closing quotes or brackets) followed by
    space and a capital or digit, unless the word before the point is a known abbreviation, a
    single letter (an initial), or itself holds points ("U.S.", "e.g.").
    """
    sentences, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[match.start()] == ".":
            word = (
                text[start : match.start()].rsplit(None, 1)[-1]
                if text[start : match.start()].strip()
                else ""
            )
            word = word.lstrip("\"'([")
            if word.lower() in _ABBREVIATIONS or len(word) == 1 or "." in word:
                continue
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    rest = text[start:].strip()
    return [s for s in [*sentences, rest] if s]


def near_duplicate(first: tuple[str, str], second: tuple[str, str]) -> bool:
    """Whether two ``(title, text)`` paragraphs say the same.

    Same title, and one normalised text equal to or inside the other (a paragraph and its
    truncated or re-split copy).
    """
    if normalize_answer(first[0]) != normalize_answer(second[0]):
        return False
    a, b = normalize_answer(first[1]), normalize_answer(second[1])
    return bool(a and b) and (a in b or b in a)


_DELIMITER = re.compile(r"</?\s*(?:reference|answer|reasoning|steps|earlier)\s*>", re.IGNORECASE)


def strip_tags(text: str) -> str:
    """``text`` without the data delimiters prompts use (``<reference>``, ``<reasoning>``, …).

    A model imitating its prompt writes them into its reply ("<reasoning> He was born…"); they
    are no part of what it said, so no query, answer or transcript keeps them.
    """
    return (
        " ".join(_DELIMITER.sub(" ", text).split(" ")).strip() if _DELIMITER.search(text) else text
    )


# The answer starts at the first character the separator class cannot take: linear matching.
EDGE_NOISE = " \t\r\n*_\"'`“”:："
"""What a model wraps around a marker's text: spaces, markdown emphasis, quotes, colons."""
_FINAL_ANSWER = re.compile(
    r"(?:final answer|the answer|answer)\s*(?:is|:)[\s:\"'“]*(?P<answer>[^\s:\"'“][^\n]*)", re.I
)


def extract_final_answer(content: str, labels: tuple[str, ...] = ()) -> str:
    """The answer stated in a final content: the text after the last "(final) answer is".

    With ``labels`` (``yes``/``no``, ``SUPPORTS``/``REFUTES``) the result is the one label the
    answer sentence names, spelt as the label: the sentence after "answer is", or, with no such
    phrase, a content that opens with a label ("No, he was not."). A label anywhere else is no
    answer ("Kevin Drew no longer lives there" says no "no"), nor is an answer sentence naming
    none or two: the result is ``""``, a counted ``no_final_answer``.
    """
    stated = ""
    scope = content
    marked = False
    while matches := list(_FINAL_ANSWER.finditer(scope)):  # "the answer is: the answer is X"
        stated = scope = matches[-1].group("answer")
        marked = True
    stated = re.split(r"(?<=[^A-Z.]\w)\.(?:\s|$)|\[\d+\]", stated)[0].strip(EDGE_NOISE + ".")
    if not labels:
        return stated
    by_word = {label.lower(): label for label in labels}
    if marked:
        named = {by_word[w] for w in normalize_answer(stated).split() if w in by_word}
        return named.pop() if len(named) == 1 else ""
    opening = normalize_answer(content).split()[:1]
    return by_word.get(opening[0], "") if opening else ""


def byte_size(count: float) -> str:
    """``count`` bytes in the largest binary unit that keeps a whole part: ``8 KiB``, ``1.5 MiB``.

    A bound of 8 KiB once read "over the 0 MiB bound".
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count:.0f} B"
