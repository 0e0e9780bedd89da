"""Whether a passage states an answer: the verdict on a step and on every citation of it.

The offline default is a lexical rule; it is cheap, it needs no model, and it is blind to
meaning. What each value means, and what the rule cannot see:

* ``stated``: the answer's words occur in the passage's text on word boundaries (after the
  answer normalisation Verify uses), at least once not under a negation ("not", "never", "no",
  "n't" … within four words before it); or a reader's span does, and the answer holds that
  span on word boundaries and negates nothing. It cannot see *what* the passage says about
  those words: "born in 1989" and "died in 1989" both state "1989".
* ``unstated``: no such occurrence (an empty answer, no passage, a negated mention only, an
  answer that negates what the passage says). A paraphrase the passage does state, in other
  words, is ``unstated`` too: the rule cannot see synonyms.
* ``unverifiable``: containment would prove nothing, so the rule does not judge — a yes/no
  answer, a bare number ("1" occurs in "number 1 in 1989"), an answer made only of the query's
  own words (the query's entity occurs in any passage retrieved for it) or of function words
  ("in", "it was": an answer off the point that any passage holds).

The title is not read: a passage's title names its subject, and "Yes Minister" states no "yes".
An NLI model (:mod:`searchain.tools.verifiers`) judges meaning instead, and decides every
answer, numbers and yes/no included.
"""

from __future__ import annotations

import re
from typing import Literal

from searchain.text import normalize_answer, rouge_l

Support = Literal["stated", "unstated", "unverifiable"]
"""The verdict on a step and its citations (see the module's documentation)."""

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "neither",
        "nor",
        "none",
        "nobody",
        "nothing",
        "nowhere",
        "without",
        "cannot",
        "isnt",
        "wasnt",
        "arent",
        "werent",
        "dont",
        "doesnt",
        "didnt",
        "hasnt",
        "havent",
        "hadnt",
        "wont",
        "wouldnt",
        "cant",
        "couldnt",
        "shouldnt",
    }
)
"""Words that negate what follows them (normalised: "wasn't" reads "wasnt")."""
NEGATION_WINDOW = 4
"""How many words before a mention a negation reaches ("was *not* born in Toronto")."""
YES_NO = frozenset({"yes", "no"})
FUNCTION_WORDS = frozenset(
    [
        "in",
        "on",
        "at",
        "of",
        "to",
        "for",
        "by",
        "with",
        "from",
        "into",
        "about",
        "as",
        "and",
        "or",
        "but",
        "if",
        "then",
        "than",
        "so",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "he",
        "she",
        "it",
        "they",
        "we",
        "you",
        "i",
        "his",
        "her",
        "its",
        "their",
        "our",
        "your",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "who",
        "what",
        "which",
        "when",
        "where",
        "why",
        "how",
    ]
)
"""Words any passage holds (normalised; articles are already gone): an answer made of nothing
else says nothing a containment test could check."""
_NUMBER = re.compile(r"^[\d.,]+$")


def _words(text: str) -> list[str]:
    return normalize_answer(text).split()


def _starts(words: list[str], needle: list[str]) -> list[int]:
    """Every position where ``needle`` occurs in ``words``, on word boundaries."""
    n = len(needle)
    return [i for i in range(len(words) - n + 1) if words[i : i + n] == needle]


def negates(words: list[str]) -> bool:
    """Whether a text's words hold a negation."""
    return any(word in NEGATIONS for word in words)


def states(text: str, answer: str) -> bool:
    """Whether ``text`` mentions ``answer`` on word boundaries, once at least not negated."""
    words, needle = _words(text), _words(answer)
    if not needle:
        return False
    return any(
        not negates(words[max(0, start - NEGATION_WINDOW) : start])
        for start in _starts(words, needle)
    )


def unverifiable(answer: str, query: str = "") -> bool:
    """Whether containment would prove nothing for ``answer`` (see the module's documentation)."""
    words = _words(answer)
    if not words:
        return False
    if len(words) == 1 and words[0] in YES_NO:
        return True
    if all(_NUMBER.match(word) for word in words):
        return True
    return set(words) <= set(_words(query)) | FUNCTION_WORDS


def lexical_verdict(
    passage: str,
    answer: str,
    reader_answer: str = "",
    query: str = "",
    *,
    long_form: bool,
    alpha: float,
) -> Support:
    """The lexical rule's verdict on whether the text ``passage`` states ``answer``.

    Long-form answers: ROUGE-L between the answer and the passage reaches ``alpha`` (Verify's
    own test). Short ones: see the module's documentation.
    """
    if long_form:
        return "stated" if rouge_l(answer, passage) >= alpha else "unstated"
    if unverifiable(answer, query):
        return "unverifiable"
    if states(passage, answer):
        return "stated"
    span = _words(reader_answer)
    if (
        span
        and not negates(_words(answer))
        and not unverifiable(reader_answer, query)
        and states(passage, reader_answer)
        and _starts(_words(answer), span)
    ):
        return "stated"
    return "unstated"
