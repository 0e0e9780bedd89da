"""A corpus's records parsed from runs of its raw bytes, in whichever process holds the run.

:class:`.corpus.Corpus` reads the file and cuts it into :class:`Chunk` s of whole records
(:mod:`.scan.rowscan`); a chunk is parsed where it lands: in the reading process when passages are
iterated, in a worker process when a build hands it over (:mod:`.workers`), so the build's
coordinating process neither decodes nor parses the corpus (at 1M passages, 10 µs a passage
of its one core: csv's parsing half of it). Either way the same code reads the same bytes, and
a bad line is reported with the same words and line number.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from searchain.errors import Worded
from searchain.text import clean_text

if TYPE_CHECKING:
    from searchain.tools.retrieval.corpus.tsvscan import Parsed

Row = tuple[int, str, str, str]
"""A record as read: ``(line number, id, title, text)``."""


class CorpusError(Worded, ValueError):
    """A corpus line that cannot be indexed; the message names the file and line."""


@dataclass(frozen=True)
class Columns:
    """Where a TSV corpus's fields are, found by name in its header."""

    id: int
    """The ``id`` column."""
    text: int
    """The ``text`` column."""
    title: int | None
    """The ``title`` column; None for a corpus without titles."""
    width: int
    """Fields in the header, and so in every row."""


@dataclass(frozen=True)
class Layout:
    """How a corpus's records read: all a process needs, beside the bytes, to parse them."""

    path: Path
    """The corpus file, named in every error."""
    format: str
    """``jsonl``, ``beir`` or ``tsv``."""
    columns: Columns | None = None
    """A TSV corpus's columns (None for JSON lines)."""


_ID_KEY = {"jsonl": "id", "beir": "_id"}


def decode(path: Path, number: int, raw: bytes) -> str:
    """Line ``number``, decoded, or a :class:`CorpusError` naming it."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}:{number}: not UTF-8 (byte {exc.start + 1})") from None


@dataclass(frozen=True)
class Chunk:
    """Whole records of a corpus as its file holds them, and the number of their first line."""

    layout: Layout
    """How they read."""
    number: int
    """The number of the chunk's first line in the file."""
    data: bytes
    """The records' bytes, decompressed."""

    def lines(self) -> Iterator[tuple[int, str]]:
        """``(number, line)`` of each line, decoded: the file's lines end at a newline only."""
        return enumerate(self.text_lines(), self.number)

    def text_lines(self) -> Iterable[str]:
        """Each line, decoded.

        The chunk is decoded whole; if it is not all UTF-8, line by line up to the first line
        that is not, which is named (what comes before it is read first, as one by one).
        """
        try:
            return io.StringIO(self.data.decode("utf-8"), newline="\n")
        except UnicodeDecodeError:
            path = self.layout.path
            numbered = enumerate(io.BytesIO(self.data), self.number)
            return (decode(path, number, raw) for number, raw in numbered)

    def rows(self) -> Iterator[Row]:
        """Every record as read, blank lines skipped, checked as :func:`checked` says."""
        layout = self.layout
        raw = _tsv(self, layout.columns) if layout.columns is not None else _json(self)
        return checked(layout.path, raw)

    def parsed(self) -> Parsed | None:
        """A TSV chunk's records parsed in compiled code (:mod:`.scan.tsvscan`).

        None for JSON lines, or a chunk that needs ``csv`` itself (read by :meth:`records`).
        """
        columns = self.layout.columns
        if columns is None:
            return None
        from searchain.tools.retrieval.corpus.tsvscan import (
            parse_tsv,  # compiled: only to read a chunk
        )

        where = (columns.width, columns.id, columns.title, columns.text)
        return parse_tsv(self.data, where, self.number)

    def records(self) -> tuple[list[tuple[str, str, str, str]], np.ndarray]:
        """``(records, ids)``: the passages as a build's workers take them, and their ids.

        A record is ``(id, title, text, "")``; ``ids`` holds the ids' hashes (uint64 bits) and
        line numbers, a ``(2, n)`` array of int64.
        """
        from searchain.tools.retrieval.corpus import (
            rowscan,  # compiled: loaded only to read a chunk
        )

        rows = list(self.rows())
        ids = np.empty((2, len(rows)), np.int64)
        ids[0] = rowscan.id_hashes([r[1] for r in rows]).view(np.int64)
        ids[1] = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        return [(i, title, text, "") for _, i, title, text in rows], ids


def checked(path: Path, rows: Iterator[Row]) -> Iterator[Row]:
    """``rows``, refused without a text or an id."""
    for row in rows:
        number, passage_id, _, text = row
        if not text.strip():
            raise CorpusError(f'{path}:{number}: missing or empty "text"')
        if not passage_id:
            raise CorpusError(f"{path}:{number}: missing id")
        yield row


def _json(chunk: Chunk) -> Iterator[Row]:
    key = _ID_KEY[chunk.layout.format]
    for number, line in chunk.lines():
        if not line.strip():
            continue
        where = f"{chunk.layout.path}:{number}"
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
        # JSON's escapes can spell lone surrogates (\ud800), which nothing can store: cleaned.
        # A TSV's fields cannot hold one: its bytes were decoded as UTF-8, which has none.
        fields = str(record[key]), str(record.get("title") or ""), text
        yield number, *map(clean_text, fields)


def tsv_rows(chunk: Chunk) -> Iterator[tuple[int, list[str]]]:
    """``(number of its last line, fields)`` of each TSV row of ``chunk``, blank ones too."""
    csv.field_size_limit(sys.maxsize)
    rows = csv.reader(chunk.text_lines(), delimiter="\t")
    before = chunk.number - 1
    try:
        for row in rows:
            yield before + rows.line_num, row
    except csv.Error as exc:  # csv's words suit a programmer, not a corpus's owner
        why = (
            "a carriage return inside an unquoted field: quote the field or remove it"
            if "new-line character" in str(exc)
            else f"not a TSV record ({exc})"
        )
        raise CorpusError(f"{chunk.layout.path}:{before + rows.line_num}: {why}") from None


def _tsv(chunk: Chunk, columns: Columns) -> Iterator[Row]:
    for number, row in tsv_rows(chunk):
        if not row:
            continue
        if len(row) != columns.width:
            raise CorpusError(
                f"{chunk.layout.path}:{number}: {len(row)} tab-separated fields, the header "
                f"has {columns.width}"
            )
        title = row[columns.title] if columns.title is not None else ""
        yield number, row[columns.id], title, row[columns.text]
