"""An answer's words with their meaning kept: what "the passage states it" compares.

SQuAD's normalisation (:func:`searchain.text.normalize_answer`) deletes punctuation inside
tokens, which is right for the official metrics and wrong for deciding whether a passage states
an answer: it reads "3.5 km" as "35 km", "-40" as "40" and "1.2 million" as "12 million". Here a
number keeps its decimal point and its sign (thousands separators go: "1,200" is "1200"), a
magnitude word stays a word of its own ("1.2 million" is ``1.2 million``, never ``12 million``),
and a date becomes one token, ``YYYY-MM-DD`` with ``?`` for what it does not give ("March 1989"
is ``1989-03-??``), so "3 March 1989", "March 3, 1989" and "1989-03-03" are one date. Every other
word is normalised as Verify normalises answers.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from searchain.text import normalize_answer

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"\d{4}"
_SPECIAL = re.compile(
    "|".join(
        [
            rf"(?P<dmy>\b(?P<dmy_d>{_DAY})\s+(?:of\s+)?(?P<dmy_m>{_MONTH}),?\s+(?P<dmy_y>{_YEAR})\b)",
            rf"(?P<mdy>\b(?P<mdy_m>{_MONTH})\s+(?P<mdy_d>{_DAY}),?\s+(?P<mdy_y>{_YEAR})\b)",
            rf"(?P<iso>\b(?P<iso_y>{_YEAR})-(?P<iso_m>\d{{1,2}})-(?P<iso_d>\d{{1,2}})\b)",
            rf"(?P<my>\b(?P<my_m>{_MONTH}),?\s+(?P<my_y>{_YEAR})\b)",
            rf"(?P<dm>\b(?P<dm_d>{_DAY})\s+(?:of\s+)?(?P<dm_m>{_MONTH})(?![\w.]))",
            rf"(?P<md>\b(?P<md_m>{_MONTH})\s+(?P<md_d>{_DAY})\b(?!,?\s*\d))",
            # A sign only where a number starts ("-40", "(-40)"), never in a range ("1990-95").
            r"(?P<number>(?<![\w.,+-])(?P<sign>[-+])?(?<![\w.,])"
            r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?|\.\d+))",
        ]
    )
)
_DATE_TOKEN = re.compile(r"^(\d{4}|\?{4})-(\d{2}|\?{2})-(\d{2}|\?{2})$")
_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?$")
_TRANSLATE = str.maketrans({"−": "-", "–": " ", "—": " "})


def _date(year: str | None, month: str | None, day: str | None) -> str | None:
    """The date token, or ``None`` when the fields are no date (month 13, day 40)."""
    m = _MONTHS.get(month.rstrip(".")) if month and not month.isdigit() else month and int(month)
    d = int(re.sub(r"\D", "", day)) if day else None
    if not m or not 1 <= int(m) <= 12 or (d is not None and not 1 <= d <= 31):
        return None
    return f"{year or '????'}-{int(m):02d}-{f'{d:02d}' if d else '??'}"


def _number(sign: str | None, digits: str) -> str:
    try:
        value = Decimal(digits.replace(",", "")).normalize()
    except InvalidOperation:  # pragma: no cover - the pattern only takes digits and one point
        return digits
    text = format(value, "f")
    return f"-{text}" if sign == "-" and value != 0 else text


def _special(match: re.Match[str]) -> list[str]:
    kind = match.lastgroup
    if kind == "number":
        return [_number(match["sign"], match["digits"])]
    assert kind is not None
    fields = match.groupdict()
    date = _date(fields.get(f"{kind}_y"), fields.get(f"{kind}_m"), fields.get(f"{kind}_d"))
    return [date] if date else normalize_answer(match.group()).split()


def answer_tokens(text: str) -> list[str]:
    """``text``'s words for comparing meaning (see the module's documentation)."""
    text = text.lower().translate(_TRANSLATE)
    tokens: list[str] = []
    start = 0
    for match in _SPECIAL.finditer(text):
        tokens += normalize_answer(text[start : match.start()]).split()
        tokens += _special(match)
        start = match.end()
    return tokens + normalize_answer(text[start:]).split()


def is_number(token: str) -> bool:
    """Whether a token is a bare number ("1989", "-40", "3.5")."""
    return bool(_NUMERIC.match(token))


def same_token(needle: str, word: str) -> bool:
    """Whether the text's ``word`` says what the answer's ``needle`` says.

    Equal tokens; a date the word gives at least as exactly ("March 1989" is said by "3 March
    1989", not the other way); a year said by a date in it.
    """
    if needle == word:
        return True
    in_text = _DATE_TOKEN.match(word)
    if in_text is None:
        return False
    asked = _DATE_TOKEN.match(needle)
    if asked is None:
        return len(needle) == 4 and needle.isdigit() and needle == in_text[1]
    return all(
        a.startswith("?") or a == b for a, b in zip(asked.groups(), in_text.groups(), strict=True)
    )


def token_starts(words: list[str], needle: list[str]) -> list[int]:
    """Every position where ``needle`` occurs in ``words``, token for token."""
    n = len(needle)
    return [
        i
        for i in range(len(words) - n + 1)
        if all(same_token(a, b) for a, b in zip(needle, words[i : i + n], strict=True))
    ]
