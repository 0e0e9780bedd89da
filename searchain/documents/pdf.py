"""PDF: one section a page, its text layer as PDFium reads it (pypdfium2; Apache-2.0/BSD).

A page without a text layer (a scan) gives no text: it is listed in ``empty_pages``, since
searchain does no OCR, and a PDF with none at all is unreadable. A PDF that needs a password to
open is refused as encrypted (one with only an owner password opens, as in any viewer).
"""

from __future__ import annotations

import re
from typing import Any

from searchain.documents.extracted import Extracted, Section, Unreadable, file_title
from searchain.text import clean_text

_CONTROL = str.maketrans({"\r": None, "\x02": "-", "\ufffe": "-", "\x00": None, "\xad": None})
"""PDFium's line ends are CR LF; a hyphen where a line broke a word comes as U+0002 or U+FFFE."""


def _opened(data: bytes) -> Any:
    import pypdfium2

    try:
        return pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise Unreadable("encrypted: it needs a password to open") from None
        raise Unreadable(f"not a readable PDF: {_why(exc)}") from None


def _why(exc: Exception) -> str:
    """PDFium's reason alone, with no parentheses of its own.

    "Failed to load document (PDFium: Data format error)." becomes "PDFium: data format error":
    a skip reason already sits in parentheses.
    """
    text = str(exc).strip().rstrip(".")
    inner = re.search(r"\(PDFium: ([^()]*)\)", text)
    if inner:
        return f"PDFium: {inner.group(1)[:1].lower()}{inner.group(1)[1:]}"
    return text.replace("(", "").replace(")", "")


def page_count(data: bytes) -> int:
    """How many pages ``data`` has, read from its page tree without extracting any."""
    pdf = _opened(data)
    try:
        return len(pdf)
    finally:
        pdf.close()


def extract(data: bytes, name: str) -> Extracted:
    """``data``'s pages as sections; title from the PDF's metadata, else the file name."""
    import pypdfium2

    pdf = _opened(data)
    try:
        sections, empty = [], []
        for number in range(1, len(pdf) + 1):
            page = pdf[number - 1]
            textpage = page.get_textpage()
            try:
                text = clean_text(textpage.get_text_range().translate(_CONTROL))
            finally:
                textpage.close()
                page.close()
            if text.strip():
                sections.append(Section(text, page=number))
            else:
                empty.append(number)
        title = (pdf.get_metadata_dict().get("Title") or "").strip()
    except pypdfium2.PdfiumError as exc:
        raise Unreadable(f"not a readable PDF: {_why(exc)}") from None
    finally:
        pdf.close()
    if not sections:
        raise Unreadable("no text layer (scanned pages? searchain does no OCR)")
    return Extracted(clean_text(title) or file_title(name), sections, empty)
