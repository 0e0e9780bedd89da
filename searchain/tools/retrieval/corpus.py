"""Corpora as passages: searchain's JSON lines ``{"id", "title", "text"}``, streamed line by line.

A bad line stops the build with an error naming the file and line, before anything is written.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path

from searchain.text import clean_text
from searchain.types import Passage


class CorpusError(ValueError):
    """A corpus line that cannot be indexed; the message names the file and line."""


def read_corpus(path: str | Path) -> Iterator[Passage]:
    """Yield the passages of a JSON-lines corpus ``{"id", "title", "text"}``.

    Blank lines are skipped; anything else that is not a JSON object with a non-empty ``text`` and
    an ``id`` unseen so far raises :class:`CorpusError` naming the line.
    """
    seen: set[str] = set()
    with Path(path).open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            where = f"{path}:{number}"
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)  # as some editors and Windows tools write
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CorpusError(f"{where}: not UTF-8 (byte {exc.start + 1})") from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise CorpusError(f"{where}: JSON nested too deeply to be a passage") from None
            if not isinstance(record, dict):
                raise CorpusError(f"{where}: expected a JSON object with id, title, text")
            text = record.get("text")
            if not isinstance(text, str) or not text.strip():
                raise CorpusError(f'{where}: missing or empty "text"')
            if record.get("id") in (None, ""):
                raise CorpusError(f'{where}: missing "id"')
            passage_id = clean_text(str(record["id"]))
            if passage_id in seen:
                raise CorpusError(f"{where}: id {passage_id!r} repeats an earlier line")
            seen.add(passage_id)
            yield Passage(passage_id, clean_text(str(record.get("title") or "")), clean_text(text))
