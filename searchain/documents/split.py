"""Sections into passages of about ``words`` words, as DPR cut Wikipedia (100 words each).

A passage never crosses a section (a PDF page, a heading's text). A section longer than
``words`` is cut into the fewest windows of at most ``words`` words that overlap by at least
``overlap`` words (up to rounding), spread evenly, so no passage is a short leftover.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from searchain.documents.extracted import Extracted, Section
from searchain.types import Passage, Source

WORDS = 100
"""Default passage size in words: DPR's, which the readers were trained on."""
MAX_WORDS = 10_000
"""The largest passage size taken: far past what a reader reads, and it keeps every term's
frequency in a passage within the 16 bits an index stores it in."""
_WORD = re.compile(r"\S+")


def check_size(words: int, overlap: int) -> None:
    """Refuse a size and overlap no passage can be cut with."""
    if not 1 <= words <= MAX_WORDS:
        raise ValueError(f"passage size must be from 1 to {MAX_WORDS:,} words, got {words}")
    if not 0 <= overlap < words:
        raise ValueError(
            f"overlap must be from 0 to {words - 1} words (below the size), got {overlap}"
        )


def windows(count: int, words: int, overlap: int) -> list[tuple[int, int]]:
    """``(first, stop)`` word ranges covering ``count`` words, each at most ``words`` long."""
    if count <= words:
        return [(0, count)]
    n = math.ceil((count - overlap) / (words - overlap))
    length = math.ceil((count + (n - 1) * overlap) / n)
    step = (count - length) / (n - 1)
    return [(round(i * step), round(i * step) + length) for i in range(n)]


def _passages(section: Section, words: int, overlap: int) -> Iterator[tuple[str, int, int]]:
    spans = [m.span() for m in _WORD.finditer(section.text)]
    for first, stop in windows(len(spans), words, overlap) if spans else []:
        start, end = spans[first][0], spans[stop - 1][1]
        yield " ".join(section.text[start:end].split()), start + section.start, end + section.start


def split(
    document: Extracted, path: str, words: int = WORDS, overlap: int = 0
) -> Iterator[Passage]:
    """``document``'s passages, ids ``PATH#1``, ``PATH#2``..., each with its source."""
    number = 0
    for section in document.sections:
        for text, start, end in _passages(section, words, overlap):
            number += 1
            source = Source(path, section.page, section.section, section.anchor, start, end)
            yield Passage(f"{path}#{number}", document.title, text, source=source)
