"""One batch of passages made ready for the index: their stored lines and their term ids.

This is the build's per-passage work — JSON-encoding each passage for the passage store,
tokenising its title and text, numbering its terms — and it runs in worker processes (the GIL
stops threads from sharing it). Term ids are the batch's own, numbered in order of first
appearance; the coordinating process maps them to the index's ids through one dictionary lookup
per distinct term of the batch, not per token. Taken in corpus order, batches give every term
the id a single pass gives it, so any number of workers builds the same index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from searchain.tools.retrieval.tokenizer import Tokenizer
from searchain.tools.retrieval.wordscan import (
    SEPARATOR,
    character_classes,
    number_words,
    word_spans,
)

Record = tuple[str, str, str]
"""A passage as a worker receives it: ``(id, title, text)``."""


@dataclass(frozen=True)
class EncodedBatch:
    """A batch of passages, encoded; see the module."""

    lines: bytes
    """The passages as the passage store's JSON lines, end to end."""
    line_lengths: np.ndarray
    """Bytes of each passage's line (int64)."""
    terms: list[str]
    """The batch's distinct terms; a term's batch id is its position here."""
    tokens: np.ndarray
    """Every passage's terms as batch ids, passage after passage (int32)."""
    lengths: np.ndarray
    """Each passage's number of tokens (int32)."""

    def __len__(self) -> int:
        return len(self.lengths)


_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(..., ensure_ascii=False)`` builds an encoder a call; one serves every line."""
_tokenizers: dict[str, Tokenizer] = {}
"""One tokenizer per kind in each process, so its stem cache outlives a batch."""


def encode_batch(records: list[Record], tokenizer: str) -> EncodedBatch:
    """Encode ``records`` with the ``tokenizer`` kind (``stem`` or ``standard``).

    Words are found and numbered by :mod:`.wordscan`; ``stem`` then drops stop words and
    stems each distinct word once, numbering the stems in order of first appearance — the
    terms, ids and order :class:`Tokenizer` and a dictionary give token by token.
    """
    tokenize = _tokenizers.get(tokenizer) or _tokenizers.setdefault(tokenizer, Tokenizer(tokenizer))
    encoded = [
        (_ENCODER.encode({"id": i, "title": title, "text": text}) + "\n").encode()
        for i, title, text in records
    ]
    texts = [f"{title} {text}".lower() for _, title, text in records]
    joined = SEPARATOR.join(texts)
    code_points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    starts, stops = word_spans(code_points, character_classes(), tokenizer == "standard")
    ids, first = number_words(code_points, starts, stops)
    ends = np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)) + 1) - 1
    passage_of = np.searchsorted(ends, starts)  # the passage each word starts in
    spans = zip(starts[first].tolist(), stops[first].tolist(), strict=True)
    words = [joined[a:b] for a, b in spans]  # the batch's distinct words, in order
    if tokenizer == "standard":
        terms, tokens = words, ids
    else:
        stop = tokenize.stopwords
        kept_words = [w for w in words if w not in stop]
        local: dict[str, int] = {}
        stem_ids = iter([local.setdefault(t, len(local)) for t in tokenize.stems(kept_words)])
        term_of = np.fromiter(
            (-1 if w in stop else next(stem_ids) for w in words), np.int32, len(words)
        )
        terms = list(local)
        tokens = term_of[ids]
        kept = tokens >= 0
        tokens, passage_of = tokens[kept], passage_of[kept]
    return EncodedBatch(
        b"".join(encoded),
        np.fromiter(map(len, encoded), np.int64, len(encoded)),
        terms,
        np.ascontiguousarray(tokens, np.int32),
        np.bincount(passage_of, minlength=len(records)).astype(np.int32),
    )
