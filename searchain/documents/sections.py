"""Sections built block by block under a stack of headings (HTML, Markdown and DOCX share it)."""

from __future__ import annotations

import re

from searchain.documents.extracted import HEADING_JOIN, Section
from searchain.text import clean_text

_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def slug(heading: str, taken: dict[str, int]) -> str:
    """A heading's anchor as GitHub makes it (``Team server: start`` → ``team-server-start``).

    ``taken`` counts the slugs met so far in the document: a repeat gets ``-1``, ``-2``...
    """
    base = _SLUG_DROP.sub("", heading.strip().lower()).replace(" ", "-")
    seen = taken.get(base, 0)
    taken[base] = seen + 1
    return f"{base}-{seen}" if seen else base


class SectionBuilder:
    """Collects blocks of text; a heading closes the section before it and opens its own."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.headings: list[tuple[int, str]] = []
        """The open headings: (level, text), outermost first."""
        self._blocks: list[str] = []
        self._anchor = ""
        self._offset = 0

    def heading(self, level: int, text: str, anchor: str) -> None:
        """Start the section under a heading of ``level`` (1 outermost); its text opens it."""
        self._flush()
        text = " ".join(text.split())
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        self._anchor = anchor
        self.block(text)

    def block(self, text: str) -> None:
        """Add a paragraph, list item, table row or code block to the open section."""
        if text.strip():
            self._blocks.append(text.strip("\n"))

    def finish(self) -> list[Section]:
        """Every section, in order, with offsets into their text joined by blank lines."""
        self._flush()
        return self.sections

    def _flush(self) -> None:
        if not self._blocks:
            return
        text = clean_text("\n".join(self._blocks))
        path = HEADING_JOIN.join(h for _, h in self.headings)
        self.sections.append(Section(text, self._offset, section=path, anchor=self._anchor))
        self._offset += len(text) + 2
        self._blocks = []
