"""Duplicate sub-query detection: whether a query (or one meaning the same) was asked before.

The cheap normalised-text comparison always runs; a semantic comparison can be added behind the
same function, so the graph never needs to know which one decided.
"""

from __future__ import annotations

from collections.abc import Sequence

from searchain.text import normalize_answer


def find_duplicate(query: str, earlier: Sequence[tuple[int, str]]) -> int | None:
    """The id of the first earlier ``(id, query)`` that asks the same as ``query``, else ``None``.

    Two queries are the same when they are equal after SQuAD normalisation (case, punctuation,
    articles and spacing do not matter).
    """
    key = normalize_answer(query)
    for node_id, other in earlier:
        if normalize_answer(other) == key:
            return node_id
    return None
