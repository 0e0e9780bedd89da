"""Reading many (query, passage) pairs at once.

A reader's own batch when it has one, else its one-pair ``read`` on the shared pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from searchain.pool import shared_pool
from searchain.types import Passage, Reader, ReaderAnswer


class PairReader:
    """A reader that reads (query, passage) pairs in one batch; ``read`` is the one-query case."""

    def read(self, query: str, passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Read each passage for ``query`` in one batch."""
        return self.read_pairs([query] * len(passages), passages)

    def read_pairs(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Read ``passages[i]`` for ``queries[i]``, all in one batch (a whole chain at once)."""
        raise NotImplementedError


def read_many(
    reader: Reader, queries: Sequence[str], passages: Sequence[Passage]
) -> list[ReaderAnswer]:
    """Read ``passages[i]`` for ``queries[i]``: one batch when the reader can, else concurrently.

    The bundled readers take the pairs in one ``read_pairs`` batch; any other reader gets one
    ``read`` call per pair, run on a thread pool.
    """
    if not queries:
        return []
    pairs = getattr(reader, "read_pairs", None)
    if pairs is not None:
        return list(pairs(list(queries), list(passages)))
    pairs_in = zip(queries, passages, strict=True)
    batches = shared_pool().map(lambda pair: reader.read(pair[0], [pair[1]]), pairs_in)
    return [answers[0] for answers in batches]
