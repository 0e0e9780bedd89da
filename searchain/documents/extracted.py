"""What a format's extractor hands the splitter: a title and sections no passage crosses."""

from __future__ import annotations

from dataclasses import dataclass, field


class Unreadable(ValueError):
    """A file that yields no passages; the message is the reason the summary gives for it."""


@dataclass(frozen=True)
class Section:
    """A run of a document's text that a passage never crosses: a PDF page, a heading's body."""

    text: str
    """The section's text as extracted (headings included, as their own line)."""
    start: int = 0
    """Offset of ``text`` in the document's extracted text (in its page's, for a PDF)."""
    page: int | None = None
    """The PDF page, from 1."""
    section: str = ""
    """The headings above it, outermost first, joined by `` › ``."""
    anchor: str = ""
    """The fragment that opens it (an element id, a heading slug, a bookmark), or empty."""


@dataclass(frozen=True)
class Extracted:
    """One document's text, ready to split."""

    title: str
    """The document's title (metadata, its first heading, or its file name)."""
    sections: list[Section]
    """Its text in order, cut where passages must not cross."""
    empty_pages: list[int] = field(default_factory=list)
    """PDF pages with no text layer (scanned images: searchain does no OCR)."""


HEADING_JOIN = " › "
"""Between the headings of a section path."""


def file_title(name: str) -> str:
    """A title from a file name: ``team-server_notes.md`` → ``team server notes``."""
    stem = name.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem.lstrip(".") else stem
    return " ".join(stem.replace("_", " ").replace("-", " ").split()) or stem
