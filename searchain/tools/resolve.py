"""Specs to objects: the retriever and reader named in the context, built once per spec.

The LLM has its own resolver in :mod:`searchain.tools.llm`; all three accept a ready object so
applications and tests can inject their own components.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from searchain.tools.base import Passage, Reader, Retriever
from searchain.tools.cache import load_once
from searchain.tools.llm import resolve_llm
from searchain.tools.readers import DPRReaderModel, ExtractiveReader, LLMReader, reader_kind


class LangChainRetriever:
    """Adapts any LangChain ``BaseRetriever`` to :class:`Retriever`.

    The passage id is the document's ``id`` (or ``metadata["id"]``), the title
    ``metadata["title"]``, the score ``metadata["score"]`` when the retriever provides one.
    """

    def __init__(self, retriever: BaseRetriever) -> None:
        self.retriever = retriever

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """The retriever's documents for ``query``, first ``k``."""
        passages = []
        for rank, doc in enumerate(self.retriever.invoke(query)[:k]):
            meta = doc.metadata
            passage_id = doc.id or meta.get("id") or f"{query}#{rank}"
            passages.append(
                Passage(
                    str(passage_id),
                    str(meta.get("title", "")),
                    doc.page_content,
                    float(meta.get("score", 0.0)),
                )
            )
        return passages


def resolve_retriever(
    spec: str | Retriever | BaseRetriever,
    index: str = "",
    *,
    es_url: str = "",
    es_index: str = "searchain",
) -> Retriever:
    """Return the retriever for ``spec``.

    ``bm25`` opens the embedded index at ``index`` (``bm25:DIR`` names the directory itself);
    ``elasticsearch`` searches ``es_index`` at ``es_url``; a LangChain ``BaseRetriever`` is
    adapted; any object with ``search(query, k)`` is used as is.
    """
    if isinstance(spec, BaseRetriever):
        return LangChainRetriever(spec)
    if isinstance(spec, Retriever):
        return spec
    name, _, arg = spec.partition(":")
    if name == "bm25":
        from searchain.tools.bm25 import BM25Index

        path = Path(arg or index).resolve()
        return load_once(("bm25", str(path)), lambda: BM25Index.load(path))
    if name == "elasticsearch":
        from searchain.tools.elastic import ElasticRetriever, ElasticSettings

        settings = ElasticSettings(url=es_url, index=arg or es_index)
        return load_once(("elasticsearch", settings), lambda: ElasticRetriever(settings))
    raise ValueError(
        f"unknown retriever {spec!r}: use bm25, bm25:DIR, elasticsearch or a retriever object"
    )


def resolve_reader(spec: str | Reader, llm: str | BaseChatModel = "auto") -> Reader:
    """Return the reader for ``spec``.

    ``dpr`` and ``extractive`` use their default models, ``dpr:NAME_OR_DIR`` and
    ``extractive:NAME_OR_DIR`` others; a model directory alone is recognised by its config;
    ``llm`` reads with the chat model ``llm``, ``llm:SPEC`` with another one (``llm:local`` reads
    with SmolLM2 whatever the reasoning LLM is). Any object with ``read`` is used as is.
    """
    if isinstance(spec, Reader):
        return spec
    name, _, arg = spec.partition(":")
    if name == "llm":
        return LLMReader(resolve_llm(arg or llm))
    if name not in ("dpr", "extractive") and Path(spec).is_dir():
        name, arg = reader_kind(spec), spec
    if name == "dpr":
        return load_once(("reader", spec), lambda: DPRReaderModel(arg or None))
    if name == "extractive":
        return load_once(("reader", spec), lambda: ExtractiveReader(arg or None))
    raise ValueError(
        f"unknown reader {spec!r}: use dpr, extractive, llm, llm:SPEC, dpr:DIR, extractive:DIR "
        "or a model directory"
    )
