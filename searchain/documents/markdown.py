"""Markdown: one section a heading, parsed by markdown-it-py (MIT; already rich's dependency).

The text is what a reader sees: markup dropped, link and image text kept, code blocks kept
(commands are what a question about a project often asks for); a raw HTML block gives its text,
never a script's, a style's or a comment's. A heading's anchor is its slug as GitHub makes it,
so ``guide.md#team-server`` opens there.
"""

from __future__ import annotations

import re
from typing import Any

from searchain.documents.extracted import Extracted, Unreadable, file_title
from searchain.documents.formats import decode_text
from searchain.documents.sections import SectionBuilder, slug

_TAG = re.compile(r"<[^>]*>")
_HIDDEN = re.compile(
    r"<(script|style|template|noscript)\b.*?(?:</\1\s*>|\Z)|<!--.*?(?:-->|\Z)", re.I | re.S
)
"""What a raw HTML block hides from a reader (a script, a style, a comment), cut with its
contents, as the HTML reader skips them; an element never closed hides the rest of its block."""


def _inline(children: list[Any] | None) -> str:
    parts = []
    for child in children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(_inline(child.children))
    return "".join(parts)


def extract(data: bytes, name: str) -> Extracted:
    """``data``'s text, a section per heading; title from the first heading, else the name."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(decode_text(data))
    builder, taken = SectionBuilder(), {}
    title = ""
    level = 0
    row: list[str] | None = None  # the cells of the table row being read
    for token in tokens:
        if token.type == "heading_open":
            level = int(token.tag[1:])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            builder.block(" | ".join(row))
            row = None
        elif token.type == "inline":
            text = _inline(token.children)
            if row is not None:
                row.append(" ".join(text.split()))
            elif level:
                builder.heading(level, text, slug(text, taken))
                title = title or " ".join(text.split())
                level = 0
            else:
                builder.block(text)
        elif token.type in ("fence", "code_block"):
            builder.block(token.content)
        elif token.type == "html_block":
            builder.block(_TAG.sub(" ", _HIDDEN.sub(" ", token.content)))
    sections = builder.finish()
    if not sections:
        raise Unreadable("no text")
    return Extracted(title or file_title(name), sections)
