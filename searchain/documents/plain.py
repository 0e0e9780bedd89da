"""Plain text: one section, the file as it is (UTF-8), titled by the file name."""

from __future__ import annotations

from searchain.documents.extracted import Extracted, Section, Unreadable, file_title
from searchain.documents.formats import decode_text
from searchain.text import clean_text


def extract(data: bytes, name: str) -> Extracted:
    """``data`` as one section."""
    text = clean_text(decode_text(data))
    if not text.strip():
        raise Unreadable("no text")
    return Extracted(file_title(name), [Section(text)])
