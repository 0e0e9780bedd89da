"""Specs to objects: the retriever and reader named in the context, built once per spec.

The LLM has its own resolver in :mod:`searchain.tools.llm`; all three accept a ready object so
applications and tests can inject their own components.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from searchain.tools.base import Passage, Reader, Retriever, lookup
from searchain.tools.cache import load_once
from searchain.tools.llm import resolve_llm
from searchain.tools.readers import DPRReaderModel, ExtractiveReader, LLMReader, reader_kind

if TYPE_CHECKING:
    from searchain.context import Context
    from searchain.tools.elastic import ElasticSettings


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


def context_retriever(ctx: Context) -> Retriever:
    """The retriever a run's context names, with its index and Elasticsearch settings."""
    from searchain.tools.elastic import ElasticSettings

    es = ElasticSettings(
        url=ctx.es_url,
        index=ctx.es_index,
        title_field=ctx.es_title_field,
        text_field=ctx.es_text_field,
        id_field=ctx.es_id_field,
    )
    return resolve_retriever(ctx.retriever, ctx.index, es=es)


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
        from searchain.tools.bm25 import BM25Index

        path = Path(arg or index).absolute()
        # Keyed by the version the link points to now: a rebuilt index is loaded afresh.
        return load_once(("bm25", str(path.resolve())), lambda: BM25Index.load(path))
    if name == "elasticsearch":
        from searchain.tools.elastic import ElasticRetriever, ElasticSettings

        settings = es or ElasticSettings()
        settings = replace(settings, index=arg) if arg else settings
        return load_once(("elasticsearch", settings), lambda: ElasticRetriever(settings))
    raise ValueError(
        f"unknown retriever {spec!r}: use bm25, bm25:DIR, elasticsearch or a retriever object"
    )


def resolve_reader(spec: str | Reader, llm: str | BaseChatModel = "auto") -> Reader:
    """Return the reader for ``spec``.

    ``dpr`` and ``extractive`` use their default models, ``dpr:NAME_OR_DIR`` and
    ``extractive:NAME_OR_DIR`` others; a model directory alone is recognised by its config;
    ``llm`` reads with the chat model ``llm``, ``llm:SPEC`` with another one (``llm:local`` reads
    with SmolLM2 whatever the reasoning LLM is). ``dpr-int8`` and ``extractive-int8`` (with
    ``:NAME_OR_DIR`` too) run the model with int8 linear layers, 2-3x faster on a CPU. Any object
    with ``read`` is used as is.
    """
    if isinstance(spec, Reader):
        return spec
    name, _, arg = spec.partition(":")
    if name == "llm":
        return LLMReader(resolve_llm(arg or llm))
    if name not in ("dpr", "extractive") and Path(spec).is_dir():
        name, arg = reader_kind(spec), spec
    kind, _, precision = name.partition("-")
    models = {"dpr": DPRReaderModel, "extractive": ExtractiveReader}
    if kind in models and precision in ("", "int8"):
        model = models[kind]
        return load_once(("reader", spec), lambda: model(arg or None, int8=precision == "int8"))
    raise ValueError(
        f"unknown reader {spec!r}: use dpr, extractive, llm, llm:SPEC, dpr:DIR, extractive:DIR, "
        "a model directory, or dpr-int8[:DIR] / extractive-int8[:DIR] for the int8 CPU path"
    )
