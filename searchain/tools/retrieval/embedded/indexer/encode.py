"""Batches of passages made ready for the index: their stored lines and their terms' codes.

This is the build's per-passage work — JSON-encoding each passage for the passage store
(:mod:`.scan.store_lines`), lower-casing and tokenising its title and text, numbering its terms, all
in compiled code but the new terms' strings — and it runs in worker processes (the GIL stops
threads from sharing it). An :class:`Encoder` numbers the terms it meets from batch to
batch (:class:`.scan.wordscan.WordTable`), so a batch carries as strings only the terms its worker
had not met before — a few thousand, not the batch's twenty thousand distinct words — and the
coordinating process, whose one core every batch passes through, looks each of those up once
(:class:`TermMap`). Taken in corpus order, batches give every term the id a single pass gives
it: a term new to the index is new to the worker that meets it, and a batch lists its new terms
in order of first appearance. Any number of workers builds the same index.

An encoder keeps every term it met: about 40 bytes a term (its code points, its slots, its
offset): 70 MB for the 1M benchmark passages' 1.75M terms, so about 0.45 GB a worker at
Wikipedia's 21M passages' 11M.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np

from searchain.tools.retrieval.embedded.analysis.tokenizer import Tokenizer
from searchain.tools.retrieval.embedded.analysis.wordscan import (
    SEPARATOR,
    TermIds,
    WordTable,
    character_classes,
    lower_case,
    lowered,
    word_spans,
)
from searchain.tools.retrieval.embedded.store.lines import json_lines
from searchain.types import Source

Record = tuple[str, str, str, str]
"""A passage as a worker receives it: ``(id, title, text, source)``, the source as its JSON
object (``""`` for a passage without one: a benchmark corpus's)."""


@dataclass(frozen=True)
class EncodedBatch:
    """A batch of passages, encoded by an :class:`Encoder`; see the module."""

    lines: bytes
    """The passages as the passage store's JSON lines, end to end."""
    line_lengths: np.ndarray
    """Bytes of each passage's line (int64)."""
    fresh: list[str]
    """Terms its encoder met first in this batch, in order of first appearance: they take the
    next codes."""
    tokens: np.ndarray
    """Every passage's terms as their encoder's codes, passage after passage (int32)."""
    lengths: np.ndarray
    """Each passage's number of tokens (int32)."""
    ids: np.ndarray | None = None
    """Read from a corpus file's chunk: the ids' hashes and line numbers, for the corpus's check
    of repeats (see :meth:`.Chunk.records`); None for passages handed over as records."""

    def __len__(self) -> int:
        return len(self.lengths)


def source_json(source: Source | None) -> str:
    """A passage's source as its stored JSON object, ``""`` for none (see :data:`Record`)."""
    return json.dumps(asdict(source), ensure_ascii=False) if source is not None else ""


def _utf32(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


class Texts:
    """A batch's texts as its encoder reads them: code points, end to end, a separator between."""

    def __init__(self, code_points: np.ndarray, ends: np.ndarray) -> None:
        self.code_points = code_points
        self.ends = ends
        """Where each text ends in :attr:`code_points` (at the separator after it)."""

    @classmethod
    def of(cls, texts: list[str]) -> Texts:
        """``texts`` laid end to end."""
        ends = np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)) + 1) - 1
        return cls(_utf32(SEPARATOR.join(texts)), ends)

    def text(self, i: int) -> str:
        """Text ``i``."""
        start = self.ends[i - 1] + 1 if i else 0
        return self.code_points[start : self.ends[i]].tobytes().decode("utf-32-le", "surrogatepass")

    def lowered(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, ends)``: the texts lowered as ``str.lower`` lowers each, and their ends.

        In compiled code, but for the texts holding a Σ: ``str.lower`` alone knows σ from ς.
        """
        lower, ends, sigmas = lowered(self.code_points, lower_case(), self.ends)
        for p in np.flatnonzero(sigmas).tolist():
            start = ends[p - 1] + 1 if p else 0
            lower[start : ends[p]] = _utf32(self.text(p).lower())
        return lower, ends


def _lines(
    ids: Texts, texts: Texts, titles: np.ndarray, sources: list[bytes]
) -> tuple[bytes, np.ndarray]:
    """The passages' stored lines, end to end, and each one's bytes.

    ``texts`` are their titles and texts, as :meth:`Encoder.encode` joins them, ``titles`` the
    titles' lengths; ``sources`` their sources' JSON (none: no passage has one).
    """
    source_ends = np.zeros(len(titles) + 1, np.int64)
    if sources:
        np.cumsum(np.fromiter(map(len, sources), np.int64, len(sources)), out=source_ends[1:])
    source_bytes = np.frombuffer(b"".join(sources), np.uint8)
    lines, lengths, ok = json_lines(
        ids.code_points, ids.ends, texts.code_points, texts.ends, titles, source_bytes, source_ends
    )
    if not ok:
        raise ValueError(
            "a passage holds a lone surrogate (half of a UTF-16 pair), which UTF-8 cannot "
            "store: pass its id, title and text through searchain.text.clean_text"
        )
    return lines.tobytes(), lengths


class Encoder:
    """Encodes one worker's batches, in the order it receives them."""

    def __init__(self, tokenizer: str) -> None:
        self.kind = tokenizer
        self._tokenize = Tokenizer(tokenizer)
        self._words = WordTable()
        self._term_of_word = np.empty(0, np.int32)
        """``stem``: each word's term code, -1 for a stop word."""
        self._stems: dict[str, int] = {}

    def encode(self, records: list[Record]) -> EncodedBatch:
        """Encode ``records``: their lines, and their terms as :class:`Tokenizer` cuts them."""
        return self.encode_texts(
            Texts.of([i for i, _, _, _ in records]),
            Texts.of([f"{title} {text}" for _, title, text, _ in records]),
            np.fromiter((len(title) for _, title, _, _ in records), np.int64, len(records)),
            [source.encode() for _, _, _, source in records],
        )

    def encode_texts(
        self, ids: Texts, texts: Texts, titles: np.ndarray, sources: list[bytes] | None = None
    ) -> EncodedBatch:
        """Encode passages given as code points: their ids, and their titles and texts.

        ``texts`` holds each title and text with a space between, ``titles`` the titles'
        lengths, ``sources`` their sources' JSON (None: no passage has one).
        """
        lower, lower_ends = texts.lowered()
        starts, stops = word_spans(lower, character_classes(), self.kind == "standard")
        known = self._words.size
        words, _ = self._words.number(lower, starts, stops)
        new_words = self._words.words(known)
        if self.kind == "standard":
            fresh, tokens = new_words, words
        else:
            fresh = self._stem(new_words)
            tokens = self._term_of_word[words]
            kept = tokens >= 0
            tokens, starts = tokens[kept], starts[kept]
        # Each passage's tokens: how many start before its end. A search a passage, not one a
        # word (1.8 µs a passage, a tenth of the encoding, when each word found its passage).
        counts = np.diff(np.searchsorted(starts, lower_ends), prepend=0)
        lines, line_lengths = _lines(ids, texts, titles, sources or [])
        return EncodedBatch(
            lines,
            line_lengths,
            fresh,
            np.ascontiguousarray(tokens, np.int32),
            counts.astype(np.int32),
        )

    def _stem(self, new_words: list[str]) -> list[str]:
        """Give words met for the first time their stems' codes; the stems met first, in order.

        A stem new to this encoder first occurs with a word new to it, so taking the new words
        in order of first appearance gives the new stems in theirs.
        """
        stop, stems, fresh = self._tokenize.stopwords, self._stems, []
        stemmed = iter(self._tokenize.stems([w for w in new_words if w not in stop]))
        codes = np.empty(len(new_words), np.int32)
        for i, word in enumerate(new_words):
            if word in stop:
                codes[i] = -1
                continue
            stem = next(stemmed)
            code = stems.get(stem)
            if code is None:
                code = stems[stem] = len(stems)
                fresh.append(stem)
            codes[i] = code
        self._term_of_word = np.concatenate([self._term_of_word, codes])
        return fresh


class TermMap:
    """The coordinating side of one :class:`Encoder`: its codes turned into the index's ids."""

    def __init__(self) -> None:
        self._ids = np.empty(1 << 10, np.int32)
        self._size = 0

    def resolve(self, batch: EncodedBatch, vocab: TermIds) -> np.ndarray:
        """``batch``'s tokens as term ids of ``vocab``, which gains the terms new to it."""
        end = self._size + len(batch.fresh)
        if end > len(self._ids):
            self._ids = np.concatenate([self._ids, np.empty(max(end, len(self._ids)), np.int32)])
        self._ids[self._size : end] = vocab.add(batch.fresh)
        self._size = end
        return self._ids[batch.tokens]
