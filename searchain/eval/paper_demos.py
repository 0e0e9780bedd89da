"""IRCoT's published demonstrations (Trivedi et al., ACL 2023, appendix G, Listings 1–4).

The paper prints each data set's questions and chains of thought, not their paragraphs (those
are in the authors' released code, which is not reachable here). Each demonstration therefore
gets the paragraphs of the shared corpus whose title its question or chain of thought names —
the pages a reader of the chain would open — and none where no such title is there.
``scripts/make_ircot_demos.py --paper FILE`` writes them to
``searchain/data/ircot_demos/paper-<dataset>.json``; ``found`` says which titles were found.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from searchain.text import normalize_answer, split_sentences
from searchain.types import Passage

LISTINGS = {
    "hotpotqa": "HotpotQA",
    "2wikimultihopqa": "2WikiMultihopQA",
    "musique": "MuSiQue",
    "iirc": "IIRC",
}
"""Data set name → the name its listing carries ("Chain-of-Thought annotations for …")."""

REPAIRS = (
    ("LeeâĂŞEnfield", "Lee–Enfield"),
    ("ÃŰgedei", "Ögedei"),
    ("GavaldÃşn", "Gavaldón"),
    ("RiviÃÍre-Verte", "Rivière-Verte"),
)
"""The text layer's mojibake, repaired; its lost minus signs are restored by :data:`_MINUS`."""
_MINUS = re.compile(r"\b(\d{4}) (\d{4}) = ")
_ITEM = re.compile(r"(?:^|\s)([QOA]): ")  # "O:" is the text layer's reading of some "Q:"
_ANSWER = re.compile(r"\s*So the answer is: (?P<answer>.+?)\.?$")
PARAGRAPHS_PER_DEMO = 4
"""At most this many paragraphs per demonstration (the reference: gold plus two distractors)."""


def listing(text: str, dataset: str) -> list[tuple[str, str]]:
    """The ``(question, chain of thought)`` pairs of ``dataset``'s listing in the paper's text.

    The text layer breaks items across pages ("- " continuation lines, a question and its answer
    on one line); items are read as the ``Q:``/``A:`` markers run. An item with no answer (the
    last of Listing 4, cut by the page) is dropped.
    """
    name = LISTINGS[dataset]
    start = text.index(f"Chain-of-Thought annotations for {name}.")
    start = text.index("\n", start)
    end = text.find("Listing ", start)
    body = text[start : end if end > 0 else len(text)]
    for wrong, right in REPAIRS:
        body = body.replace(wrong, right)
    body = _MINUS.sub(r"\1 − \2 = ", body)
    flat = " ".join(line.strip().removeprefix("- ") for line in body.splitlines())
    flat = " ".join(flat.split())
    marks = list(_ITEM.finditer(" " + flat))
    pairs: list[tuple[str, str]] = []
    question = None
    for i, mark in enumerate(marks):
        end_at = marks[i + 1].start() if i + 1 < len(marks) else len(flat) + 1
        value = (" " + flat)[mark.end() : end_at].strip()
        if mark.group(1) in "QO":
            question = value
        elif question is not None:
            pairs.append((question, value))
            question = None
    return pairs


def paper_demos(text: str, dataset: str, corpus: Iterable[Passage]) -> list[dict[str, Any]]:
    """``dataset``'s published demonstrations, with the corpus paragraphs their text names."""
    by_title: dict[str, list[Passage]] = defaultdict(list)
    for passage in corpus:
        key = normalize_answer(passage.title)
        if len(key) >= 4:  # "us", "uk": too short to tell a title from a word
            by_title[key].append(passage)
    demos = []
    for n, (question, reasoning) in enumerate(listing(text, dataset), start=1):
        match = _ANSWER.search(reasoning)
        answer = match.group("answer").strip() if match else ""
        cot = split_sentences(reasoning[: match.start()] if match else reasoning)
        found = _named_titles(f"{question} {' '.join(cot)} {answer}", by_title)
        paragraphs = [_best(by_title[key], cot) for key in found[:PARAGRAPHS_PER_DEMO]]
        demos.append(
            {
                "id": f"paper-{dataset}-{n}",
                "question": question,
                "paragraphs": [{"title": p.title, "text": p.text} for p in paragraphs],
                "cot": cot,
                "answer": answer,
                "found": [p.title for p in paragraphs],
            }
        )
    return demos


def _named_titles(text: str, by_title: dict[str, list[Passage]]) -> list[str]:
    """The corpus titles ``text`` names, as written, longest first, none inside another.

    A title counts where the text spells it with its capitals as a whole name: not a common
    word ("year" is not the page "Year") and not part of a longer name ("James Paris Lee" does
    not name "Paris").
    """
    named = []
    words = f" {normalize_answer(text)} "
    for key, passages in by_title.items():
        if f" {key} " not in words:  # cheap first: the title's words are not even there
            continue
        title = passages[0].title
        for match in re.finditer(rf"(?<![\w–-]){re.escape(title)}(?![\w–-])", text):
            before = text[: match.start()].split(" ")[-2:-1] if match.start() else []
            after = text[match.end() :].split(" ")[1:2] if text[match.end() :][:1] == " " else []
            if _joins(before) or _joins(after) or not title[:1].isupper():
                continue
            named.append(key)
            break
    named.sort(key=len, reverse=True)
    kept: list[str] = []
    for title in named:
        if not any(f" {title} " in f" {longer} " for longer in kept):
            kept.append(title)
    return kept


_GLUE = {"The", "A", "An", "In", "Of", "On", "At", "By", "For", "From", "To", "Thus,", "So"}


def _joins(word: list[str]) -> bool:
    """Whether a neighbouring word (``[]``: none) makes a match part of a longer name."""
    return bool(word) and word[0][:1].isupper() and word[0] not in _GLUE and word[0][-1:].isalnum()


def _best(passages: list[Passage], cot: list[str]) -> Passage:
    """Of a title's paragraphs, the one sharing most words with the chain of thought."""
    words = set(normalize_answer(" ".join(cot)).split())
    return max(passages, key=lambda p: len(words & set(normalize_answer(p.text).split())))
