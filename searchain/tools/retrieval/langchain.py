"""Any LangChain retriever as a searchain :class:`~searchain.types.Retriever`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from searchain.tools.retrieval.fields import lookup
from searchain.types import Passage


class LangChainRetriever:
    """Adapts any LangChain ``BaseRetriever`` to :class:`Retriever`, keeping real ids and titles.

    A citation must resolve to the passage the user's collection holds, so the passage id is the
    document's ``id``, else the first of ``id_keys`` found in its ``metadata`` (dotted paths reach
    nested fields: langchain-elasticsearch's ``ElasticsearchRetriever`` puts the hit there, with
    ``_id`` and ``_source``); a document with none gets a stable hash of its text. The
    title and score come from the first of ``title_keys`` and ``score_keys`` found.
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        *,
        id_keys: Sequence[str] = ("_id", "id"),
        title_keys: Sequence[str] = ("title", "_source.title"),
        score_keys: Sequence[str] = ("score", "_score"),
    ) -> None:
        self.retriever = retriever
        self.id_keys, self.title_keys, self.score_keys = id_keys, title_keys, score_keys

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """The retriever's documents for ``query``, first ``k``."""
        return [self.passage(doc) for doc in self.retriever.invoke(query)[:k]]

    def passage(self, doc: Document) -> Passage:
        """One document as a passage: its own id, title and score, or stable stand-ins."""
        meta = doc.metadata
        title = _first(meta, self.title_keys)
        title = "" if title is None else str(title)
        passage_id = doc.id or _first(meta, self.id_keys)
        if passage_id is None or str(passage_id) == "":
            digest = hashlib.sha256(doc.page_content.encode()).hexdigest()
            passage_id = f"sha256:{digest[:16]}"
        score = _first(meta, self.score_keys)
        return Passage(
            str(passage_id),
            title,
            doc.page_content,
            float(score) if isinstance(score, int | float) else 0.0,
        )


def _first(meta: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first of ``keys`` present (and not ``None``) in ``meta``."""
    for key in keys:
        value = lookup(meta, key)
        if value is not None:
            return value
    return None
