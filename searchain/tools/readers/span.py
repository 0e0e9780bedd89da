"""The passage's span inside an LLM reader's sentence ("The spouse of X is Kris Benson.").

Asked to copy a short span, a small model often answers in a sentence that restates the
question around it; that line is no span of the passage, so the reading scored 0 and never
corrected anything, even when it held the right answer (measured: benchmarks/README.md). The
answer is then the longest run of the line's words that its passage contains, beginning with a
word the question does not hold and ending on no stop word: "Kris Benson", "6 July 1958". A
line with no such run keeps its words, and a reading whose answer the passage does not contain
scores 0.
"""

from __future__ import annotations

import re

from searchain.text import normalize_answer
from searchain.tools.retrieval.embedded.analysis.tokenizer import english_stopwords

WORD = re.compile(r"[^\s]+")


def passage_span(line: str, query: str, passage: str) -> str:
    """The longest run of ``line``'s words that ``passage`` contains, or ``line`` itself.

    The run begins with a word the question does not hold and ends on no stop word.
    """
    words = WORD.findall(line)
    plain = [normalize_answer(w) for w in words]
    stop = english_stopwords()
    asked = set(normalize_answer(query).split()) | stop
    text = f" {normalize_answer(passage)} "
    best: tuple[int, int] | None = None
    for start in range(len(words)):
        if not plain[start] or plain[start] in asked:
            continue
        for end in range(len(words), start, -1):
            if best is not None and end - start <= best[1] - best[0]:
                break
            if plain[end - 1] in stop or not plain[end - 1]:
                continue
            if f" {' '.join(p for p in plain[start:end] if p)} " in text:
                best = (start, end)
                break
    if best is None:
        return line
    return " ".join(words[best[0] : best[1]]).strip(" .,;:!?\"'")
