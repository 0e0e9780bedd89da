"""A person's files as the passages of one index build, and the summary of what was skipped."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from searchain.documents.extracted import Unreadable
from searchain.documents.formats import require
from searchain.documents.reading import Budget, Reader
from searchain.documents.split import WORDS, check_size, split
from searchain.documents.walk import Skipped, walk
from searchain.files import digest, open_regular
from searchain.indexed import Changes, Compared, Indexed, content_hash
from searchain.text import byte_size, counted
from searchain.types import Passage

MAX_FILE_BYTES = 256 << 20
"""Default bound on one file's size: a larger one is skipped, not read into memory."""


class Documents:
    """The passages of the documents under ``paths``, for an index's build (read once).

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
        budget: Budget | None = None,
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
        self.escaped = found.escaped
        """Names that are not UTF-8, as the index records them (``\\xNN`` for such a byte)."""
        self.read = 0
        """Files that gave passages so far."""
        self.passages = 0
        """Passages so far."""
        self.sizes = found.sizes
        """Each document's size in bytes when walked, by relative path."""
        self.size = sum(self.sizes.values())
        """Bytes of all the files."""
        self.indexed: list[Indexed] = []
        """The documents that gave passages, in order, with their content hashes (an index's
        record of what it holds, which an update compares the files with)."""
        self._done = 0
        self._paths, self._include, self._exclude = list(paths), list(include), list(exclude)
        self._words, self._overlap, self._max_bytes = words, overlap, max_bytes
        self._reader = Reader(budget)
        require(fmt for _, _, fmt in self.files)

    def position(self) -> int:
        """Bytes of the files read so far."""
        return self._done

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
        self._done += self.sizes.get(record.path, 0)
        return record

    def __iter__(self) -> Iterator[Passage]:
        for _, passages in self.by_file():
            yield from passages

    def by_file(self) -> Iterator[tuple[Indexed, list[Passage]]]:
        """Each document that gives passages, with them (a skipped one is recorded, not given)."""
        with self._reader:  # its process stops when the last file is read
            for rel, path, fmt in self.files:
                passages = self.read_file(rel, path, fmt)
                if passages:
                    yield self.indexed[-1], passages

    def compare(
        self, held: dict[str, tuple[str, int]], progress: Callable[[int], None] | None = None
    ) -> tuple[Compared, Changes]:
        """The files against what an index holds (``{path: (sha256, passages)}``).

        Every file is hashed; only the new and changed ones are read. (Hashing in threads is
        slower: a document is a few kilobytes, and the work per file is Python's.) ``progress``
        is called with the passages counted so far.
        """
        compared: Compared = []
        added = changed = 0
        with self._reader:
            for rel, path, fmt in self.files:
                over = self.sizes.get(rel, 0) > self._max_bytes  # skipped unread: never hashed
                sha, before = None if over else _file_hash(path), held.get(rel)
                if sha is not None and before is not None and before[0] == sha:
                    compared.append((self.keep(Indexed(rel, *before)), None))
                else:
                    passages = self.read_file(rel, path, fmt)
                    if passages:
                        compared.append((self.indexed[-1], passages))
                        added += before is None
                        changed += before is not None
                if progress:
                    progress(self.passages)
        live = {record.path for record, _ in compared}
        removed = sum(1 for rel in held if rel not in live)
        return compared, Changes(added, changed, removed, len(compared) - added - changed)

    def read_file(self, rel: str, path: str, fmt: str, data: bytes | None = None) -> list[Passage]:
        """One file's passages (``data``: its bytes, if already read); a skip is recorded."""
        try:
            return self._read(rel, path, fmt, data)
        finally:
            self._done += self.sizes.get(rel, 0)

    def _read(self, rel: str, path: str, fmt: str, data: bytes | None) -> list[Passage]:
        size = _size(path) if data is None else len(data)
        if size > self._max_bytes:
            bound = byte_size(self._max_bytes)
            self.skipped.append(Skipped(rel, f"{byte_size(size)}, over the {bound} bound"))
            return []
        try:
            data = _read_bytes(path) if data is None else data
            document = self._reader.read(fmt, data, rel).document  # in its process, bounded
        except OSError as exc:
            self.skipped.append(Skipped(rel, f"unreadable ({exc.strerror or exc})"))
            return []
        except Unreadable as exc:
            self.skipped.append(Skipped(rel, str(exc)))
            return []
        self.read += 1
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
        if self.escaped:
            names = ", ".join(self.escaped)
            lines.append(f"wrote {counted(len(self.escaped), 'name')} not in UTF-8 as {names}")
        if self.ignored:
            kinds = ", ".join(f"{n} {ending}" for ending, n in sorted(self.ignored.items()))
            others = counted(sum(self.ignored.values()), "file")
            lines.append(f"left out {others} of other types ({kinds})")
        return lines


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _file_hash(path: str) -> str | None:
    """A file's :func:`content_hash`; None if it cannot be read now (read_file says why)."""
    try:
        return digest(path)
    except OSError:
        return None


def _read_bytes(path: str) -> bytes:
    with open_regular(path) as file:  # a file that became a FIFO since the walk: skipped
        return file.read()
