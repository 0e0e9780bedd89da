"""DOCX (Word 2007 and later): one section a heading, read by python-docx (MIT).

Paragraphs and table rows in body order; a paragraph styled ``Heading N`` (or ``Title``) opens a
section, its anchor the bookmark Word puts on it (``_Toc...`` when a table of contents links it).
The title is the document's core property, else its ``Title`` paragraph or first heading, else
the file name.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from searchain.documents.extracted import Extracted, Unreadable, file_title
from searchain.documents.sections import SectionBuilder

_LEVEL = re.compile(r"heading (\d)$", re.IGNORECASE)
UNPACKED_BYTES = 256 << 20
"""What a DOCX's parts may hold unpacked, together: past it, a zip bomb is refused unread (a
real one of a thousand pages holds a few megabytes)."""


def _bookmark(paragraph: Any) -> str:
    from docx.oxml.ns import qn

    for mark in paragraph._p.iter(qn("w:bookmarkStart")):
        name = mark.get(qn("w:name")) or ""
        if name and name != "_GoBack":
            return name
    return ""


def extract(data: bytes, name: str) -> Extracted:
    """``data``'s paragraphs and tables, a section per heading."""
    import docx
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:  # sizes read from its directory
            unpacked = sum(part.file_size for part in archive.infolist())
        if unpacked > UNPACKED_BYTES:
            raise Unreadable(
                f"unpacks to {unpacked / 2**20:,.0f} MiB, over the {UNPACKED_BYTES >> 20} MiB a "
                "DOCX may hold (a zip bomb?)"
            )
        document = docx.Document(io.BytesIO(data))
    except (Unreadable, MemoryError):  # a memory budget reached is said as such by the reader
        raise
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise Unreadable(f"not a readable DOCX ({exc})") from None
    except Exception as exc:  # python-docx raises its own types for a package it cannot open
        raise Unreadable(f"not a readable DOCX ({type(exc).__name__}: {exc})") from None
    builder = SectionBuilder()
    title = (document.core_properties.title or "").strip()
    first_heading = ""
    styles: dict[str | None, str] = {}  # a style's name looked up once per style id, not per
    # paragraph (python-docx searches the styles part each time: 60 µs a paragraph)
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            paragraph = Paragraph(child, document)
            text = paragraph.text
            if child.style not in styles:
                styles[child.style] = paragraph.style.name if paragraph.style is not None else ""
            style = styles[child.style]
            level = 1 if style == "Title" else int(m.group(1)) if (m := _LEVEL.match(style)) else 0
            if level and text.strip():
                builder.heading(level, text, _bookmark(paragraph))
                first_heading = first_heading or " ".join(text.split())
            else:
                builder.block(text)
        elif child.tag == qn("w:tbl"):
            for row in Table(child, document).rows:
                builder.block(" | ".join(" ".join(cell.text.split()) for cell in row.cells))
    sections = builder.finish()
    if not sections:
        raise Unreadable("no text")
    return Extracted(title or first_heading or file_title(name), sections)
