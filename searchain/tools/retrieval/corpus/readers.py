"""Corpora as passages, streamed in the formats corpora ship in.

* ``jsonl``: searchain's JSON lines ``{"id", "title", "text"}``;
* ``beir``: BEIR's ``corpus.jsonl`` ``{"_id", "title", "text"}``;
* ``tsv``: DPR's ``psgs_w100.tsv`` — a header ``id<TAB>text<TAB>title`` (columns found by name),
  fields quoted the way Python's ``csv`` module and DPR write them.

Each may be gzip-, bz2- or zstd-compressed; the compression is read from the file's first bytes
and the format from its first line (or given). Nothing is loaded whole: the file is read in
chunks of whole records (:meth:`Corpus.chunks`), parsed here or, in a build, by the worker
process that encodes them (:mod:`.corpus_rows`). A bad line stops the
build with an error naming the file and line, before anything is published.

Repeated ids are found without keeping every id: each id's 64-bit hash and line number go into two
flat arrays (16 bytes a passage), sorted once the stream ends; a hash seen twice is confirmed by
reading the ids on both lines back, so a hash collision is never reported as a repeat.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np

from searchain.tools.retrieval.corpus.rows import (
    Chunk,
    Columns,
    CorpusError,
    Layout,
    decode,
    tsv_rows,
)
from searchain.types import Passage, is_whole

FORMATS = ("auto", "jsonl", "beir", "tsv")
COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\x28\xb5\x2f\xfd": "zstd"}
READ = 1 << 20
"""Bytes of the (decompressed) file read at a time."""
CHUNK_ROWS = 1000
"""Records a :class:`Chunk` holds: a build worker's batch (:data:`.workers.BATCH`)."""
__all__ = ["Corpus", "CorpusError", "IdCheck", "read_corpus"]


CORPUS_SUFFIXES = (".jsonl", ".json", ".ndjson", ".tsv")
"""Endings a corpus file's name has (before a compression's ``.gz``, ``.bz2``, ``.zst``)."""


def corpus_name(name: str) -> bool:
    """Whether a file name reads as a corpus's (``psgs_w100.tsv.gz``, ``corpus.jsonl``)."""
    stem = name.lower()
    for compressed in (".gz", ".bz2", ".zst", ".zstd"):
        stem = stem.removesuffix(compressed)
    return stem.endswith(CORPUS_SUFFIXES)


def compression_of(path: Path) -> str:
    """``gzip``, ``bz2``, ``zstd`` or ``none``, from the file's first bytes (not its name)."""
    with path.open("rb") as raw:
        head = raw.read(4)
    return next((kind for magic, kind in COMPRESSIONS.items() if head.startswith(magic)), "none")


def _open_binary(path: Path, raw: IO[bytes]) -> IO[bytes]:
    kind = compression_of(path)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    if kind == "bz2":
        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if kind == "zstd":
        import zstandard

        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))  # type: ignore[arg-type]
    return raw


def detect_format(first_line: str) -> str:
    """The format of a corpus whose first non-blank line is ``first_line``."""
    stripped = first_line.strip()
    if stripped.startswith("{"):
        try:
            record = json.loads(stripped)
        except json.JSONDecodeError:
            return "jsonl"  # reported as invalid JSON on line 1
        return "beir" if isinstance(record, dict) and "_id" in record else "jsonl"
    if "\t" in first_line:
        return "tsv"
    if stripped.startswith("["):
        raise CorpusError(
            "the corpus is a JSON array: give one JSON object per line (JSON Lines, "
            '{"id", "title", "text"}), e.g. jq -c \'.[]\' FILE > corpus.jsonl'
        )
    raise CorpusError(
        "cannot tell the corpus format from its first line (neither a JSON object nor "
        "tab-separated columns): give {format}",
        settings=("format",),
    )


class Corpus:
    """A corpus file, read as passages; ``position`` and ``size`` (bytes) drive a progress bar.

    Iterating yields :class:`Passage` objects; a repeated id raises :class:`CorpusError` once the
    stream is read (naming both lines), before anything that reads it is published.
    """

    def __init__(self, path: str | Path, fmt: str = "auto", limit: int | None = None) -> None:
        self.path = Path(path)
        if fmt not in FORMATS:
            raise CorpusError(f"unknown corpus format {fmt!r}: use {', '.join(FORMATS)}")
        if limit is not None and not is_whole(limit, 1):
            raise CorpusError(f"limit must be a whole number of passages, 1 or more: {limit!r}")
        self.limit = limit
        """Passages read at most: the corpus's first (None: all of them)."""
        if self.path.is_dir():
            raise CorpusError(f"corpus {self.path} is a directory: pass a corpus file")
        if not self.path.is_file():
            raise CorpusError(f"corpus {self.path} does not exist")
        self.size = self.path.stat().st_size
        """Bytes on disk (compressed, if it is)."""
        self._raw: IO[bytes] | None = None
        self.format = self._detect() if fmt == "auto" else fmt
        """``jsonl``, ``beir`` or ``tsv``."""

    def text_bytes(self) -> int:
        """Bytes of the corpus once decompressed.

        Exact for a plain file; estimated from the compression ratio of its first 16 MiB.
        """
        if compression_of(self.path) == "none":
            return self.size
        with self.path.open("rb") as raw:
            stream = _open_binary(self.path, raw)
            try:
                sample = len(stream.read(16 << 20))
            except (OSError, EOFError) as exc:
                raise CorpusError(f"{self.path}: cannot be decompressed ({exc})") from None
            return int(self.size * sample / max(raw.tell(), 1))

    def position(self) -> int:
        """Bytes of the file read so far (of the compressed file, if it is)."""
        raw = self._raw
        return raw.tell() if raw is not None and not raw.closed else 0

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        with self.path.open("rb") as raw:
            stream = _open_binary(self.path, raw)
            try:
                for number, line in enumerate(stream, 1):
                    yield number, (line.removeprefix(codecs.BOM_UTF8) if number == 1 else line)
            except (OSError, EOFError) as exc:  # a corrupt or truncated compressed stream
                raise CorpusError(f"{self.path}: cannot be decompressed ({exc})") from None

    def _detect(self) -> str:
        for number, raw in self._lines():
            if raw.strip():
                return detect_format(decode(self.path, number, raw))
        raise CorpusError(f"{self.path}: the corpus has no passages")

    def _reads(self) -> Iterator[bytes]:
        """The file's bytes, decompressed, :data:`READ` at a time, a leading BOM removed."""
        with self.path.open("rb") as raw:
            self._raw = raw
            stream = _open_binary(self.path, raw)
            try:
                data = stream.read(max(READ, len(codecs.BOM_UTF8)))  # a BOM in one read
                yield data.removeprefix(codecs.BOM_UTF8)
                while data := stream.read(READ):
                    yield data
            except (OSError, EOFError) as exc:  # a corrupt or truncated compressed stream
                raise CorpusError(f"{self.path}: cannot be decompressed ({exc})") from None

    def chunks(self, rows: int | None = None) -> Iterator[Chunk]:
        """The corpus as :class:`Chunk` s of whole records, in order.

        ``rows`` records a chunk (default :data:`CHUNK_ROWS`), blank lines among them.

        A TSV corpus's header is read here, not handed on: each chunk carries its columns. With a
        :attr:`limit`, the chunks end at the last passage it takes.
        """
        from searchain.tools.retrieval.corpus.rowscan import rows_end

        if rows is not None and not is_whole(rows, 1):
            raise ValueError(f"rows must be a whole number, 1 or more: {rows!r}")
        tsv = self.format == "tsv"
        layout = None if tsv else Layout(self.path, self.format)
        reads = self._reads()
        buffer, start, number, ended, left = b"", 0, 1, False, self.limit
        while True:
            wanted = (rows or CHUNK_ROWS) if layout is not None else 1  # a TSV's header first
            end, found, blank = rows_end(np.frombuffer(buffer, np.uint8), start, tsv, wanted)
            if found < wanted and not ended:
                more = next(reads, None)
                ended = more is None
                buffer, start = buffer[start:] + (more or b""), 0
                continue
            if not found:  # the end of the file: what is left is a last line without a newline
                end = len(buffer)
                if end == start:
                    break
            chunk = Chunk(layout or Layout(self.path, "tsv"), number, buffer[start:end])
            number += buffer.count(b"\n", start, end)
            start = end
            if layout is None:
                layout = Layout(self.path, "tsv", self._columns(chunk))
                continue
            if left is not None:
                passages = _passages(chunk, found, blank)
                if passages >= left:
                    yield _first(chunk, left)
                    return
                left -= passages
            yield chunk
        if layout is None:
            raise CorpusError(f"{self.path}: the corpus has no passages")

    def _columns(self, header: Chunk) -> Columns:
        """A TSV corpus's columns, from its first row."""
        row = next(tsv_rows(header), (1, []))[1]
        columns = {name.strip().lower(): i for i, name in enumerate(row)}
        if "id" not in columns or "text" not in columns:
            raise CorpusError(
                f"{self.path}:1: a TSV corpus starts with a header naming its columns "
                f"(id, text, title), found {row!r}"
            )
        return Columns(columns["id"], columns["text"], columns.get("title"), len(row))

    def __iter__(self) -> Iterator[Passage]:
        ids = IdCheck()
        for chunk in self.chunks():
            records, read = chunk.records()
            ids.extend(read)
            for passage_id, title, text, _ in records:
                yield Passage(passage_id, title, text)
        self.check_ids(ids)

    def check_ids(self, ids: IdCheck) -> None:
        """Refuse a corpus whose every record ``ids`` holds: none at all, or a repeated id."""
        if not ids:  # a TSV header alone, say: every reader of the corpus is told which file
            raise CorpusError(f"{self.path}: the corpus has no passages")
        repeat = ids.first_repeat(self._id_at)
        if repeat is not None:
            passage_id, first, again = repeat
            raise CorpusError(f"{self.path}:{again}: id {passage_id!r} repeats line {first}")

    def _id_at(self, numbers: set[int]) -> dict[int, str]:
        """The ids on the given line numbers, read again from the file."""
        found: dict[int, str] = {}
        for chunk in self.chunks():
            for number, passage_id, _, _ in chunk.rows():
                if number in numbers:
                    found[number] = passage_id
                    if len(found) == len(numbers):
                        return found
        return found


def _passages(chunk: Chunk, records: int, blank: int) -> int:
    """Passages in ``chunk``: its ``records`` less the ``blank`` ones.

    For TSV, as :func:`.scan.rowscan.rows_end` counts them (``records`` 0: a last line without a
    newline); JSON lines are decoded and stripped, as the reader does.
    """
    if chunk.layout.format == "tsv":
        return records - blank if records else int(chunk.data[:1] not in (b"\n", b"\r"))
    return sum(bool(line.decode(errors="replace").strip()) for line in io.BytesIO(chunk.data))


def _first(chunk: Chunk, passages: int) -> Chunk:
    """``chunk`` cut just after its first ``passages`` passages."""
    from searchain.tools.retrieval.corpus.rowscan import rows_end

    data, end = np.frombuffer(chunk.data, np.uint8), 0
    while passages and end < len(data):
        start = end
        end, found, blank = rows_end(data, start, chunk.layout.format == "tsv", 1)
        end = end if found else len(data)
        passages -= _passages(Chunk(chunk.layout, 0, chunk.data[start:end]), found, blank)
    return Chunk(chunk.layout, chunk.number, chunk.data[:end])


class IdCheck:
    """Repeated ids among millions, in 16 bytes an id: hashes and line numbers in flat arrays."""

    def __init__(self) -> None:
        self._hashes = array("Q")
        self._lines = array("q")

    def __len__(self) -> int:
        return len(self._lines)

    def extend(self, ids: np.ndarray) -> None:
        """Add the hashes and line numbers a :meth:`.Chunk.records` gave."""
        self._hashes.frombytes(ids[0].tobytes())
        self._lines.frombytes(ids[1].tobytes())

    def first_repeat(
        self, ids_at: Callable[[set[int]], dict[int, str]]
    ) -> tuple[str, int, int] | None:
        """``(id, first line, repeating line)`` of the earliest repeat, or None.

        ``ids_at(line numbers)`` reads ids back to tell a real repeat from a hash collision.
        """
        hashes = np.frombuffer(self._hashes, dtype=np.uint64)
        lines = np.frombuffer(self._lines, dtype=np.int64)
        order = np.lexsort((lines, hashes))  # by hash, then line
        sorted_hashes = hashes[order]
        shared = np.flatnonzero(sorted_hashes[1:] == sorted_hashes[:-1])
        if not len(shared):
            return None
        groups: dict[int, list[int]] = {}
        for i in shared:
            group = groups.setdefault(int(sorted_hashes[i]), [int(lines[order[i]])])
            group.append(int(lines[order[i + 1]]))
        ids = ids_at({n for group in groups.values() for n in group})
        repeats = []
        for group in groups.values():
            first: dict[str, int] = {}
            for line in group:  # ascending
                passage_id = ids[line]
                if passage_id in first:
                    repeats.append((passage_id, first[passage_id], line))
                else:
                    first[passage_id] = line
        return min(repeats, key=lambda r: r[2]) if repeats else None


def read_corpus(path: str | Path, fmt: str = "auto", limit: int | None = None) -> Corpus:
    """The passages of the corpus at ``path``, its first ``limit`` (see :class:`Corpus`)."""
    return Corpus(path, fmt, limit)
