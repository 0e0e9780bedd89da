"""Corpora as passages, streamed line by line in the formats corpora ship in.

* ``jsonl``: searchain's JSON lines ``{"id", "title", "text"}``;
* ``beir``: BEIR's ``corpus.jsonl`` ``{"_id", "title", "text"}``;
* ``tsv``: DPR's ``psgs_w100.tsv`` — a header ``id<TAB>text<TAB>title`` (columns found by name),
  fields quoted the way Python's ``csv`` module and DPR write them.

Each may be gzip-, bz2- or zstd-compressed; the compression is read from the file's first bytes
and the format from its first line (or given). Nothing is loaded whole. A bad line stops the
build with an error naming the file and line, before anything is published.

Repeated ids are found without keeping every id: each id's 64-bit hash and line number go into two
flat arrays (16 bytes a passage), sorted once the stream ends; a hash seen twice is confirmed by
reading the ids on both lines back, so a hash collision is never reported as a repeat.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import hashlib
import io
import json
import sys
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np

from searchain.text import clean_text
from searchain.types import Passage

FORMATS = ("auto", "jsonl", "beir", "tsv")
COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\x28\xb5\x2f\xfd": "zstd"}
_ID_KEY = {"jsonl": "id", "beir": "_id"}


class CorpusError(ValueError):
    """A corpus line that cannot be indexed; the message names the file and line."""


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
        "tab-separated columns): give --format jsonl, beir or tsv"
    )


class Corpus:
    """A corpus file, read as passages; ``position`` and ``size`` (bytes) drive a progress bar.

    Iterating yields :class:`Passage` objects; a repeated id raises :class:`CorpusError` once the
    stream is read (naming both lines), before anything that reads it is published.
    """

    def __init__(self, path: str | Path, fmt: str = "auto") -> None:
        self.path = Path(path)
        if fmt not in FORMATS:
            raise CorpusError(f"unknown corpus format {fmt!r}: use {', '.join(FORMATS)}")
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
            self._raw = raw
            stream = _open_binary(self.path, raw)
            try:
                for number, line in enumerate(stream, 1):
                    yield number, (line.removeprefix(codecs.BOM_UTF8) if number == 1 else line)
            except (OSError, EOFError) as exc:  # a corrupt or truncated compressed stream
                raise CorpusError(f"{self.path}: cannot be decompressed ({exc})") from None

    def _detect(self) -> str:
        for number, raw in self._lines():
            if raw.strip():
                return detect_format(self._decode(number, raw))
        raise CorpusError(f"{self.path}: the corpus has no passages")

    def _decode(self, number: int, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CorpusError(f"{self.path}:{number}: not UTF-8 (byte {exc.start + 1})") from None

    def __iter__(self) -> Iterator[Passage]:
        ids = _IdCheck()
        for number, passage_id, title, text in self._records():
            if not text.strip():
                raise CorpusError(f'{self.path}:{number}: missing or empty "text"')
            if not passage_id:
                raise CorpusError(f"{self.path}:{number}: missing id")
            passage_id = clean_text(passage_id)
            ids.add(passage_id, number)
            yield Passage(passage_id, clean_text(title), clean_text(text))
        if not ids:  # a TSV header alone, say: every reader of the corpus is told which file
            raise CorpusError(f"{self.path}: the corpus has no passages")
        repeat = ids.first_repeat(self._id_at)
        if repeat is not None:
            passage_id, first, again = repeat
            raise CorpusError(f"{self.path}:{again}: id {passage_id!r} repeats line {first}")

    def _records(self) -> Iterator[tuple[int, str, str, str]]:
        """``(line, id, title, text)`` of every record, in the file's format."""
        return self._tsv() if self.format == "tsv" else self._json(_ID_KEY[self.format])

    def _json(self, key: str) -> Iterator[tuple[int, str, str, str]]:
        for number, raw in self._lines():
            line = self._decode(number, raw)
            if not line.strip():
                continue
            where = f"{self.path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise CorpusError(f"{where}: JSON nested too deeply to be a passage") from None
            if not isinstance(record, dict):
                raise CorpusError(
                    f"{where}: expected a JSON object with {key}, title, text: one object per "
                    "line (JSON Lines), not a JSON array"
                    if isinstance(record, list)
                    else f"{where}: expected a JSON object with {key}, title, text"
                )
            text = record.get("text")
            if not isinstance(text, str):
                found = ", ".join(sorted(map(str, record))[:6]) or "none"
                raise CorpusError(
                    f'{where}: missing or empty "text" (each line is {{"{key}", "title", '
                    f'"text"}}; this one has: {found})'
                )
            if record.get(key) in (None, ""):
                raise CorpusError(f'{where}: missing "{key}"')
            yield number, str(record[key]), str(record.get("title") or ""), text

    def _tsv(self) -> Iterator[tuple[int, str, str, str]]:
        lines = self._lines()
        numbered = ((n, self._decode(n, raw)) for n, raw in lines)
        current = [0]

        def text_lines() -> Iterator[str]:
            for number, line in numbered:
                current[0] = number
                yield line

        csv.field_size_limit(sys.maxsize)
        rows = csv.reader(text_lines(), delimiter="\t")
        try:
            header = next(rows, None)
            columns = {name.strip().lower(): i for i, name in enumerate(header or [])}
            if "id" not in columns or "text" not in columns:
                raise CorpusError(
                    f"{self.path}:1: a TSV corpus starts with a header naming its columns "
                    f"(id, text, title), found {header!r}"
                )
            at_id, at_text, at_title = columns["id"], columns["text"], columns.get("title")
            width = len(header or [])
            for row in rows:
                if not row:
                    continue
                if len(row) != width:
                    raise CorpusError(
                        f"{self.path}:{current[0]}: {len(row)} tab-separated fields, the header "
                        f"has {width}"
                    )
                title = row[at_title] if at_title is not None else ""
                yield current[0], row[at_id], title, row[at_text]
        except csv.Error as exc:  # csv's words suit a programmer, not a corpus's owner
            why = (
                "a carriage return inside an unquoted field: quote the field or remove it"
                if "new-line character" in str(exc)
                else f"not a TSV record ({exc})"
            )
            raise CorpusError(f"{self.path}:{current[0]}: {why}") from None

    def _id_at(self, numbers: set[int]) -> dict[int, str]:
        """The ids on the given line numbers, read again from the file."""
        found: dict[int, str] = {}
        for number, passage_id, _, _ in self._records():
            if number in numbers:
                found[number] = clean_text(passage_id)
                if len(found) == len(numbers):
                    break
        return found


def id_hash(passage_id: str) -> int:
    """A 64-bit hash of an id (collisions are told apart by reading the ids back)."""
    return int.from_bytes(hashlib.blake2b(passage_id.encode(), digest_size=8).digest(), "little")


class _IdCheck:
    """Repeated ids among millions, in 16 bytes an id: hashes and line numbers in flat arrays."""

    def __init__(self) -> None:
        self._hashes = array("Q")
        self._lines = array("q")

    def __len__(self) -> int:
        return len(self._lines)

    def add(self, passage_id: str, line: int) -> None:
        self._hashes.append(id_hash(passage_id))
        self._lines.append(line)

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


def read_corpus(path: str | Path, fmt: str = "auto") -> Corpus:
    """The passages of the corpus at ``path`` (see :class:`Corpus`)."""
    return Corpus(path, fmt)
