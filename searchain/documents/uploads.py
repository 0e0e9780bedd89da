"""Files a person sends with a question: read into the thread's own passages, within bounds.

A chat front-end sends a file as a content block of the human message. The shapes read are a
closed list, each carrying the file's bytes in the message itself:

- Agent Chat UI's "Upload PDF or Image": ``{"type": "file", "mimeType", "data", "metadata":
  {"filename"}}``;
- LangChain's standard block: ``{"type": "file", "mime_type", "base64"}`` (name in ``extras``
  or ``filename``);
- LangChain's earlier one: ``{"type": "file", "source_type": "base64", "mime_type", "data"}``;
- plain text: ``{"type": "text-plain", "text" | "base64"}``.

Anything else is refused in one line naming what is read: an image (searchain does no OCR), a
file given by URL or by a provider's file id (a request is never the reason a URL is reached),
a type not among :data:`~searchain.documents.formats.ACCEPTED`, a block of unknown shape.
Each file is bounded (bytes, PDF pages) and so is the number a thread holds; a file sent again
(same name, same bytes) is held once.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from searchain.documents.extracted import Unreadable
from searchain.documents.formats import (
    ACCEPTED,
    MIME_TYPES,
    format_of,
    require,
)
from searchain.documents.reading import PageBound, Reader
from searchain.documents.split import split
from searchain.indexed import content_hash
from searchain.text import counted
from searchain.types import Passage

NAME_CHARACTERS = 200
"""A sent file's name is cut to this many characters."""
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Upload:
    """A file sent in a thread's messages, read into passages: part of the thread's own corpus."""

    name: str
    """The file's name as sent (its last path part), made unique in the thread: what its
    passages' ids and citations name."""
    sha256: str
    """The SHA-256 of its bytes."""
    size: int
    """Its size in bytes."""
    pages: int | None
    """A PDF's page count; None for other formats."""
    passages: list[Passage] = field(default_factory=list)
    """Its passages, ids ``NAME#1``, ``NAME#2``..., each with its source (page, section),
    marked as sent."""
    empty_pages: list[int] = field(default_factory=list)
    """PDF pages with no text layer (searchain does no OCR): nothing of them can be found."""

    def described(self) -> str:
        """``read report.pdf: 12 pages, 40 passages`` (and any page left unread)."""
        pages = f"{counted(self.pages, 'page')}, " if self.pages is not None else ""
        line = f"read {self.name}: {pages}{counted(len(self.passages), 'passage')}"
        if self.empty_pages:
            shown = ", ".join(map(str, self.empty_pages))
            line += f" (no text layer on p. {shown}: searchain does no OCR)"
        return line


@dataclass(frozen=True)
class UploadBounds:
    """What a thread may hold: a deployment's settings (:class:`searchain.context.Context`)."""

    max_bytes: int
    """Bytes a file may have."""
    max_pages: int
    """Pages a PDF may have."""
    per_thread: int
    """Files a thread may hold."""


@dataclass(frozen=True)
class SentFile:
    """A file block of a message, decoded, not read yet."""

    name: str
    """Its name as sent (or ``file N``), made safe to show."""
    fmt: str
    """The format its MIME type (or, for a generic one, its name) says."""
    data: bytes
    """Its bytes."""


def sent_files(content: str | Sequence[Any], max_bytes: int) -> list[SentFile]:
    """The files a message's content sends; ValueError in one line for a block not read."""
    if isinstance(content, str):
        return []
    files: list[SentFile] = []
    for number, block in enumerate(content, 1):
        if not isinstance(block, str) and not (
            isinstance(block, Mapping) and block.get("type") == "text"
        ):
            files.append(sent_file(block, f"file {len(files) + 1}", max_bytes, number))
    return files


def sent_file(block: object, default_name: str, max_bytes: int, number: int = 1) -> SentFile:
    """One file block decoded (see the module's list of shapes); ValueError in one line if not."""
    if not isinstance(block, Mapping):
        raise ValueError(_refused(f"block {number} of the message is a {type(block).__name__}"))
    kind = block.get("type")
    name = _name(block) or default_name
    if kind not in ("file", "text-plain"):
        what = "an image: searchain does no OCR" if kind in ("image", "image_url") else ""
        article = "an" if isinstance(kind, str) and kind[:1] in "aeiou" else "a"
        sent = f"{article} {kind!r} block" if isinstance(kind, str) else "a block with no type"
        raise ValueError(_refused(f"{name if _name(block) else 'the message'} is {sent}", what))
    if "url" in block or "file_id" in block or block.get("source_type") in ("url", "id"):
        raise ValueError(
            f"{name} is sent by URL or file id: searchain reads a file's bytes sent in the "
            "message and never fetches one; send the file itself"
        )
    if kind == "text-plain" and isinstance(block.get("text"), str):
        data = block["text"].encode("utf-8")
    else:
        data = _decoded(block, name, max_bytes)
    mime = str(block.get("mimeType") or block.get("mime_type") or "").split(";")[0].strip()
    fmt = "text" if kind == "text-plain" else MIME_TYPES.get(mime.lower())
    if fmt is None and mime.lower() in ("", "application/octet-stream"):
        fmt = format_of(name)
    if fmt is None:
        raise ValueError(_refused(f"{name} is {mime or 'of no stated type'}"))
    if len(data) > max_bytes:
        raise ValueError(_over(name, len(data), max_bytes))
    return SentFile(name, fmt, data)


def _decoded(block: Mapping[str, Any], name: str, max_bytes: int) -> bytes:
    encoded = block.get("data") if "data" in block else block.get("base64")
    if not isinstance(encoded, str) or not encoded:
        raise ValueError(f"{name} carries no data: send its bytes base64-encoded in `data`")
    if len(encoded) // 4 * 3 > max_bytes + 2:  # refused before decoding a copy
        raise ValueError(_over(name, len(encoded) // 4 * 3, max_bytes))
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{name}: its data is not base64") from None


def _name(block: Mapping[str, Any]) -> str:
    """The file name a block carries (Agent Chat UI's metadata, LangChain's fields), made safe."""
    places = [block.get("metadata"), block.get("extras"), block]
    for place in places:
        if isinstance(place, Mapping):
            for key in ("filename", "name", "title"):
                if isinstance(place.get(key), str) and place[key].strip():
                    last = place[key].replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
                    return _UNSAFE.sub("", last).strip()[:NAME_CHARACTERS]
    return ""


def _refused(what: str, why: str = "") -> str:
    return f"{what}{f' ({why})' if why else ''}: searchain reads files of type {ACCEPTED}"


def _over(name: str, size: int, max_bytes: int) -> str:
    return (
        f"{name} is {size / 2**20:.1f} MiB, over this server's bound of "
        f"{max_bytes / 2**20:.0f} MiB a file (SEARCHAIN_UPLOAD_MAX_MIB)"
    )


def read_uploads(
    files: Sequence[SentFile], held: Sequence[Upload], bounds: UploadBounds
) -> list[Upload]:
    """``files`` read into passages, those ``held`` already left out; ValueError in one line.

    Every file is refused or read before any is kept: a message is taken whole or not at all.
    """
    names = {upload.name: upload.sha256 for upload in held}
    new: list[Upload] = []
    for sent in files:
        sha = content_hash(sent.data)
        if names.get(sent.name) == sha:
            continue  # sent again: held once
        name = _unique(sent.name, names)
        upload = _read(SentFile(name, sent.fmt, sent.data), sha, bounds)
        names[name] = sha
        new.append(upload)
    if len(held) + len(new) > bounds.per_thread:
        raise ValueError(
            f"this thread would hold {counted(len(held) + len(new), 'file')}, over this "
            f"server's bound of {bounds.per_thread} a thread (SEARCHAIN_UPLOADS_PER_THREAD): "
            "start a new thread for more files"
        )
    return new


def _unique(name: str, taken: Mapping[str, str]) -> str:
    """``name``, or ``stem (2).ext`` when the thread holds another file under it."""
    if name not in taken:
        return name
    stem, dot, ending = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    number = 2
    while f"{stem} ({number}){dot}{ending}" in taken:
        number += 1
    return f"{stem} ({number}){dot}{ending}"


def _read(sent: SentFile, sha: str, bounds: UploadBounds) -> Upload:
    try:
        require([sent.fmt])
    except ImportError as exc:
        raise ValueError(f"{sent.name}: {exc}") from None
    try:
        with Reader() as reader:  # parsed in a process of its own, within its budget
            reading = reader.read(sent.fmt, sent.data, sent.name, max_pages=bounds.max_pages)
    except PageBound as exc:
        raise ValueError(
            f"{sent.name} has {exc.pages:,} pages, over this server's bound of "
            f"{bounds.max_pages:,} a file (SEARCHAIN_UPLOAD_MAX_PAGES)"
        ) from None
    except Unreadable as exc:
        raise ValueError(f"{sent.name} cannot be read: {exc}") from None
    document, pages = reading.document, reading.pages
    passages = [
        replace(p, source=replace(p.source, sent=True)) if p.source else p
        for p in split(document, sent.name)
    ]
    return Upload(sent.name, sha, len(sent.data), pages, passages, document.empty_pages)
