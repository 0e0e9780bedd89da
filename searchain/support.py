"""Whether a passage states an answer: the verdict on a step and on every citation of it.

The offline default is a lexical rule; it is cheap, it needs no model, and it is blind to
meaning. What each value means, and what the rule cannot see:

* ``stated``: the answer occurs in the passage's text token for token (words normalised as
  Verify normalises answers; numbers with their point and sign, dates as dates: see
  :mod:`searchain.tokens`), at least once not under a negation ("not", "never", "no", "n't" …
  within four words before it); or a reader's span does, the answer holds that span, negates
  nothing, and every other content word of the answer is in the passage too, not negated
  ("Paris, France" is not stated by a passage saying "Paris, Texas"), but for the query's own
  words ("The performer of X is Kevin Drew" restates the query around the span). It cannot
  see *what* the passage says about those words: "born in 1989" and "died in 1989" both
  state "1989", and "Paris" is stated by "Paris, Texas".
* ``unstated``: no such occurrence (an empty answer, no passage, a negated mention only, an
  answer that negates what the passage says, an answer the passage states only in part). A
  paraphrase the passage does state, in other words, is ``unstated`` too: the rule cannot see
  synonyms, nor a number written out ("twelve") or in other units.
* ``unverifiable``: containment would prove nothing, so the rule does not judge — a yes/no
  answer, a bare number ("1" occurs in "number 1 in 1989"), an answer made only of the query's
  own words (the query's entity occurs in any passage retrieved for it) or of function words
  ("in", "it was": an answer off the point that any passage holds).

The title is not read: a passage's title names its subject, and "Yes Minister" states no "yes".
An NLI model (:mod:`searchain.tools.verifiers`) judges meaning instead, and decides every
answer, numbers and yes/no included.
"""

from __future__ import annotations

from typing import Literal

from searchain.text import occurs_in, rouge_l
from searchain.tokens import answer_tokens, is_number, same_token, token_starts

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


def negates(words: list[str]) -> bool:
    """Whether a text's words hold a negation."""
    return any(word in NEGATIONS for word in words)


def _affirmed(words: list[str], needle: list[str]) -> bool:
    """Whether ``needle`` occurs in ``words``, once at least not after a negation."""
    return bool(needle) and any(
        not negates(words[max(0, start - NEGATION_WINDOW) : start])
        for start in token_starts(words, needle)
    )


def states(text: str, answer: str) -> bool:
    """Whether ``text`` mentions ``answer`` token for token, once at least not negated."""
    return _affirmed(answer_tokens(text), answer_tokens(answer))


def unverifiable(answer: str, query: str = "") -> bool:
    """Whether containment would prove nothing for ``answer`` (see the module's documentation)."""
    words = answer_tokens(answer)
    if not words:
        return False
    if len(words) == 1 and words[0] in YES_NO:
        return True
    if all(is_number(word) for word in words):
        return True
    return set(words) <= set(answer_tokens(query)) | FUNCTION_WORDS


def taken_from(span: str, text: str) -> bool:
    """Whether a reader's ``span`` was cut out of ``text`` (a word piece counts).

    :func:`searchain.text.occurs_in`, and every number and date of the span is one of the
    text's own: "3.5 km" is not cut from "35 km", so it cannot correct the model's "35 km".
    """
    if not occurs_in(span, text):
        return False
    held = answer_tokens(text)
    return all(
        any(same_token(token, word) for word in held)
        for token in answer_tokens(span)
        if is_number(token) or "-" in token
    )


def is_consistent(
    llm_answer: str,
    reader_answer: str,
    passage_text: str,
    *,
    long_form: bool,
    alpha: float,
) -> bool:
    """SearChain's consistency test between the LLM's answer and the retrieved evidence.

    Short answers: the reader's span must be contained in the LLM's answer, token for token
    (a reader's "35 km" does not agree with "3.5 km"). Long-form answers (ELI5): ROUGE-L
    between the LLM's answer and the passage must reach ``alpha``.
    """
    if long_form:
        return rouge_l(llm_answer, passage_text) >= alpha
    span = answer_tokens(reader_answer)
    return bool(span) and bool(token_starts(answer_tokens(llm_answer), span))


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
    text, words = answer_tokens(passage), answer_tokens(answer)
    if _affirmed(text, words):
        return "stated"
    span = answer_tokens(reader_answer)
    restated = FUNCTION_WORDS | set(answer_tokens(query))  # "The performer of X is …"
    if (
        span
        and not negates(words)
        and not unverifiable(reader_answer, query)
        and _affirmed(text, span)
        and token_starts(words, span)
        and all(_affirmed(text, [word]) for word in words if word not in restated)
    ):
        return "stated"
    return "unstated"
