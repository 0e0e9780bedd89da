"""A person's files as the passages of one index build, and the summary of what was skipped."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from searchain.documents.extracted import Unreadable
from searchain.documents.formats import extract, require
from searchain.documents.split import WORDS, check_size, split
from searchain.documents.walk import Skipped, walk
from searchain.text import counted
from searchain.types import Passage

MAX_FILE_BYTES = 256 << 20
"""Default bound on one file's size: a larger one is skipped, not read into memory."""


@dataclass(frozen=True)
class Indexed:
    """A document an index holds: where, which content, how many passages."""

    path: str
    """Relative to the root, as in its passages' sources."""
    sha256: str
    """Its bytes' SHA-256, hex: an update re-reads the file only when this changes."""
    passages: int
    """Its passages, consecutive in the index."""


def content_hash(data: bytes) -> str:
    """A file's SHA-256, hex (how an update tells a changed file from an unchanged one)."""
    return hashlib.sha256(data).hexdigest()


class Documents:
    """The passages of the documents under ``paths``, for :meth:`BM25Index.build` (read once).

    Walking happens here, so a missing path or an extra that is not installed stops the command
    before any work; reading and splitting happen as the build iterates. A file that cannot be
    read is skipped and listed in :attr:`skipped`; ``position()`` and ``size`` (bytes of the
    files) drive a progress bar, as a corpus file's do.
    """

    format = "documents"
    """How the build's summary names the input."""

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        words: int = WORDS,
        overlap: int = 0,
        max_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        check_size(words, overlap)
        if max_bytes < 1:
            raise ValueError(f"the file size bound must be at least 1 byte, got {max_bytes}")
        found = walk(paths, include, exclude)
        self.root = found.root
        """The folder every source path is relative to."""
        self.files = found.files
        """``(relative path, path, format)`` of every document found."""
        self.skipped: list[Skipped] = list(found.skipped)
        """Files and pages that gave no passages, and why (filled as the build reads)."""
        self.ignored = found.ignored
        """Files of other types under the folders, by ending."""
        self.read = 0
        """Files that gave passages so far."""
        self.passages = 0
        """Passages so far."""
        self.pages = 0
        """PDF pages read so far."""
        self.size = sum(_size(path) for _, path, _ in self.files)
        """Bytes of all the files."""
        self.indexed: list[Indexed] = []
        """The documents that gave passages, in order, with their content hashes (an index's
        record of what it holds, which an update compares the files with)."""
        self._done = 0
        self._paths, self._include, self._exclude = list(paths), list(include), list(exclude)
        self._words, self._overlap, self._max_bytes = words, overlap, max_bytes
        require(fmt for _, _, fmt in self.files)

    def position(self) -> int:
        """Bytes of the files read so far."""
        return self._done

    def text_bytes(self) -> int:
        """An upper bound on the text's size (the files' bytes), for the disk check."""
        return self.size

    def settings(self) -> dict[str, Any]:
        """What an update needs to walk and split the same way (kept in the index's manifest)."""
        return {
            "root": str(self.root),
            "paths": [str(Path(os.path.abspath(p))) for p in self._paths],
            "include": list(self._include),
            "exclude": list(self._exclude),
            "words": self._words,
            "overlap": self._overlap,
            "max_bytes": self._max_bytes,
        }

    @classmethod
    def again(cls, settings: dict[str, Any]) -> Documents:
        """The same documents walked anew with the settings :meth:`settings` recorded."""
        return cls(
            settings["paths"],
            include=settings["include"],
            exclude=settings["exclude"],
            words=settings["words"],
            overlap=settings["overlap"],
            max_bytes=settings["max_bytes"],
        )

    def keep(self, record: Indexed) -> Indexed:
        """Count a document an index already holds, unchanged (an update does not read it)."""
        self.read += 1
        self.passages += record.passages
        self.indexed.append(record)
        self._done += _size(self.root / record.path)
        return record

    def __iter__(self) -> Iterator[Passage]:
        for rel, path, fmt in self.files:
            yield from self.read_file(rel, path, fmt)

    def read_file(self, rel: str, path: Path, fmt: str, data: bytes | None = None) -> list[Passage]:
        """One file's passages (``data``: its bytes, if already read); a skip is recorded."""
        try:
            return self._read(rel, path, fmt, data)
        finally:
            self._done += _size(path)

    def _read(self, rel: str, path: Path, fmt: str, data: bytes | None) -> list[Passage]:
        size = _size(path) if data is None else len(data)
        if size > self._max_bytes:
            limit = self._max_bytes / 2**20
            self.skipped.append(
                Skipped(rel, f"{size / 2**20:.0f} MiB, over the {limit:.0f} MiB bound")
            )
            return []
        try:
            data = path.read_bytes() if data is None else data
            document = extract(fmt, data, rel)
        except OSError as exc:
            self.skipped.append(Skipped(rel, f"unreadable ({exc.strerror or exc})"))
            return []
        except Unreadable as exc:
            self.skipped.append(Skipped(rel, str(exc)))
            return []
        self.read += 1
        self.pages += document.pages
        if document.empty_pages:
            pages = ", ".join(map(str, document.empty_pages))
            where = f"{rel} p. {pages}" if len(document.empty_pages) == 1 else f"{rel} pp. {pages}"
            self.skipped.append(Skipped(where, "no text layer: a scan? searchain does no OCR"))
        passages = list(split(document, rel, self._words, self._overlap))
        self.passages += len(passages)
        self.indexed.append(Indexed(rel, content_hash(data), len(passages)))
        return passages

    def summary(self, into: str = "") -> str:
        """``indexed 118 files, 412 passages{into}; skipped 3: a.pdf (encrypted) …``."""
        line = f"indexed {counted(self.read, 'file')}, {counted(self.passages, 'passage')}{into}"
        return "; ".join([line, *self.problems()])

    def problems(self) -> list[str]:
        """``skipped 3: a.pdf (encrypted) …`` and ``left out 2 files of other types (2 .png)``."""
        lines = []
        if self.skipped:
            reasons = "; ".join(f"{s.path} ({s.reason})" for s in self.skipped)
            lines.append(f"skipped {len(self.skipped)}: {reasons}")
        if self.ignored:
            kinds = ", ".join(f"{n} {ending}" for ending, n in sorted(self.ignored.items()))
            others = counted(sum(self.ignored.values()), "file")
            lines.append(f"left out {others} of other types ({kinds})")
        return lines


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
