"""The document types searchain reads, told by file name (or MIME type), checked by content.

Closed by default: a file whose name ends otherwise is not a document (a folder's other files
are counted and left alone; a file named on the command line is refused), and a file whose bytes
are not what its name says (a binary ``.txt``, a ``.pdf`` that is no PDF) is skipped with that
reason before any parser sees it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from searchain.documents.extracted import Extracted, Unreadable

SUFFIXES = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".docx": "docx",
}
"""File name endings (lower case) and the format each names."""
MIME_TYPES = {
    "application/pdf": "pdf",
    "text/html": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
"""MIME types (an upload's) and the format each names."""
ACCEPTED = (
    "PDF, HTML, Markdown, DOCX or plain text (.pdf, .html, .htm, .md, .markdown, .docx, .txt)"
)
"""What an error says is accepted."""
_MODULES = {"pdf": "pypdfium2", "html": "lxml", "docx": "docx", "markdown": "", "text": ""}
"""The library each format needs beyond searchain's own dependencies (the ``documents`` extra)."""
_SNIFF = 8192


def format_of(name: str) -> str | None:
    """The format a file name says, or None if it names none searchain reads."""
    dot = name.rfind(".")
    return SUFFIXES.get(name[dot:].lower()) if dot > 0 else None


def require(formats: Iterable[str]) -> None:
    """Refuse, before any work, formats whose library is not installed (one line, how to fix)."""
    missing = sorted({f for f in formats if _MODULES[f] and not _importable(_MODULES[f])})
    if missing:
        raise ImportError(
            f"reading {', '.join(f.upper() for f in missing)} needs the documents extra: "
            "pip install 'searchain[documents]'"
        )


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def check_content(fmt: str, data: bytes) -> None:
    """Raise :class:`Unreadable` if ``data`` is plainly not a ``fmt`` file."""
    if not data:
        raise Unreadable("empty file")
    if fmt == "pdf":
        if b"%PDF-" not in data[:1024]:
            raise Unreadable("not a PDF (no %PDF- header)")
    elif fmt == "docx":
        if not data.startswith(b"PK\x03\x04"):
            raise Unreadable("not a DOCX (not a zip archive; a .doc from Word 97-2003 is not read)")
    elif b"\x00" in data[:_SNIFF]:
        raise Unreadable("binary data, not text")


def extractor(fmt: str) -> Callable[[bytes, str], Extracted]:
    """The ``extract(data, name)`` of a format's module (imported when first needed)."""
    module = importlib.import_module(f"searchain.documents.{'plain' if fmt == 'text' else fmt}")
    return module.extract  # type: ignore[no-any-return]


def extract(fmt: str, data: bytes, name: str) -> Extracted:
    """``data`` (a file named ``name``) read as ``fmt``; :class:`Unreadable` says why not."""
    check_content(fmt, data)
    return extractor(fmt)(data, name)


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark dropped), or :class:`Unreadable` naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text at byte {exc.start + 1}: convert it to UTF-8") from None
