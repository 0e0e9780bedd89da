"""Retriever specs to objects (``bm25``, ``bm25:DIR``, ``elasticsearch[:INDEX]``), built once.

Every place that takes a ``retriever`` (context, CLI, Python API) accepts the same specs, a
LangChain retriever, or any object with ``search(query, k)``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.retrievers import BaseRetriever

from searchain.cache import load_once
from searchain.tools.retrieval.langchain import LangChainRetriever
from searchain.types import Retriever

if TYPE_CHECKING:
    from searchain.tools.retrieval.elastic.retriever import ElasticSettings


def resolve_retriever(
    spec: str | Retriever | BaseRetriever,
    index: str = "",
    *,
    es: ElasticSettings | None = None,
) -> Retriever:
    """Return the retriever for ``spec``.

    ``bm25`` opens the embedded index at ``index`` (``bm25:DIR`` names the directory itself);
    ``elasticsearch`` searches the index ``es`` names (``elasticsearch:NAME`` another index);
    a LangChain ``BaseRetriever`` is adapted; any object with ``search(query, k)`` is used as is.
    """
    if isinstance(spec, BaseRetriever):
        return LangChainRetriever(spec)
    if isinstance(spec, Retriever):
        return spec
    name, _, arg = spec.partition(":")
    if name == "bm25":
        from searchain.tools.retrieval.embedded.index import BM25Index

        path = Path(arg or index).absolute()
        # Keyed by the version the link points to now: a rebuilt index is loaded afresh.
        return load_once(("bm25", str(path.resolve())), lambda: BM25Index.load(path))
    if name == "elasticsearch":
        from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

        settings = es or ElasticSettings()
        settings = replace(settings, index=arg) if arg else settings
        return load_once(("elasticsearch", settings), lambda: ElasticRetriever(settings))
    raise ValueError(
        f"unknown retriever {spec!r}: use bm25, bm25:DIR, elasticsearch or a retriever object"
    )
