"""An index's bytes checked against its manifest before anything reads them.

What is checked when (docs/retrieval.md, "A damaged index"):

* **At open**, every file's size, and every file's content but the two that hold the bulk of
  an index, ``bm25/postings.bin`` and ``passages.zst`` (:data:`LAZY`): the vocabulary, the
  offset tables and the norms are read whole, their SHA-256 compared with the manifest's.
* **At first touch**, the two large files one chunk of :data:`CHUNK` bytes at a time: before a
  search reads a term's blocks, or a passage its frame, the chunks holding them are read and
  compared with the chunk digests the manifest records (:class:`CheckedFile`), once each for
  the life of the open index.
* **By** ``searchain index --verify``, all of it, and every block of postings decoded.

So every byte a kernel reads has been compared with what the build wrote: a fault can neither
crash a search nor change its results unsaid; it is refused in one line naming the file and the
bytes. An index written before chunk digests has its large files checked whole at first touch.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import weakref
from pathlib import Path
from typing import Any

CHUNK = 1 << 20
"""Bytes a chunk digest covers (the last chunk: the rest)."""
LAZY = frozenset({"bm25/postings.bin", "passages.zst"})
"""The files checked chunk by chunk at first touch rather than whole at open."""
DIGEST = 16
"""Bytes of SHA-256 kept a chunk."""


SELF = "manifest_sha256"
"""The manifest's field holding the digest of the rest of it."""


class ChecksumError(ValueError):
    """Bytes of an index file that do not match their recorded digest."""


def _canonical(manifest: dict[str, Any]) -> bytes:
    rest = {key: value for key, value in manifest.items() if key != SELF}
    return json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()


def sealed(manifest: dict[str, Any]) -> str:
    """``manifest`` as its file's text, with the digest of the rest of it.

    The manifest holds every other file's digests, and its own: no byte of an index goes
    unchecked.
    """
    digest = hashlib.sha256(_canonical(manifest)).hexdigest()
    return json.dumps({**manifest, SELF: digest}, indent=1)


def check_seal(manifest: dict[str, Any]) -> None:
    """ChecksumError if ``manifest``'s own digest does not match the rest of it.

    One written before manifests carried a digest is taken as it is.
    """
    recorded = manifest.get(SELF)
    if recorded is not None and recorded != hashlib.sha256(_canonical(manifest)).hexdigest():
        raise ChecksumError("the manifest does not match its checksum")


def digests(path: Path) -> tuple[str, list[str]]:
    """``(sha256, chunk digests)`` of a file, read once: the whole file's and each chunk's."""
    whole = hashlib.sha256()
    chunks = []
    with path.open("rb") as data:
        while block := data.read(CHUNK):
            whole.update(block)
            chunks.append(hashlib.sha256(block).digest()[:DIGEST].hex())
    return whole.hexdigest(), chunks


class CheckedFile:
    """One large file of an open index, its chunks compared with the manifest's as first read.

    Thread-safe: two threads that touch an unchecked chunk at once may both read it; neither
    reads bytes that were not checked. The file is opened here, when the index is, and read
    through that descriptor: a version swept two republishes later (its files unlinked) is still
    checked as the open index reads it, never looked up by name again.
    """

    def __init__(self, path: Path, name: str, sha: str, chunks: list[str] | None) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._fd)
        self.name = name
        """Its path in the index, as errors name it."""
        self._sha = sha
        self._chunks = chunks
        self._checked = bytearray(len(chunks) if chunks is not None else 1)
        self._lock = threading.Lock()

    def ensure(self, start: int, end: int) -> None:
        """Check the chunks holding bytes ``[start, end)`` not checked yet.

        ChecksumError if one does not match.
        """
        if end <= start:
            return
        if self._chunks is None:  # an index from before chunk digests: the whole file, once
            if not self._checked[0]:
                self._check_whole()
            return
        for chunk in range(start // CHUNK, min((end - 1) // CHUNK + 1, len(self._chunks))):
            if not self._checked[chunk]:
                self._check_chunk(chunk)

    def _check_chunk(self, chunk: int) -> None:
        data = os.pread(self._fd, CHUNK, chunk * CHUNK)
        if hashlib.sha256(data).digest()[:DIGEST].hex() != self._chunks[chunk]:  # type: ignore[index]
            lo = chunk * CHUNK
            raise ChecksumError(
                f"{self.name}, bytes {lo:,} to {lo + len(data):,}, does not match its checksum"
            )
        self._checked[chunk] = 1

    def _check_whole(self) -> None:
        with self._lock:
            if self._checked[0]:
                return
            sha, offset = hashlib.sha256(), 0
            while block := os.pread(self._fd, CHUNK, offset):
                sha.update(block)
                offset += len(block)
            if sha.hexdigest() != self._sha:
                raise ChecksumError(f"{self.name} does not match its checksum")
            self._checked[0] = 1
