"""What a run searches: the index its context names, and the files sent in its thread."""

from __future__ import annotations

from collections.abc import Sequence

from searchain.context import Context
from searchain.documents.uploads import Upload, UploadBounds
from searchain.tools.retrieval.resolve import resolve_retriever
from searchain.types import Retriever


def context_retriever(ctx: Context) -> Retriever:
    """The retriever a run's context names, with its index and Elasticsearch settings."""
    from searchain.tools.retrieval.elastic.retriever import ElasticSettings

    es = ElasticSettings(
        url=ctx.es_url,
        index=ctx.es_index,
        title_field=ctx.es_title_field,
        text_field=ctx.es_text_field,
        id_field=ctx.es_id_field,
    )
    return resolve_retriever(ctx.retriever, ctx.index, es=es)


def thread_retriever(ctx: Context, uploads: Sequence[Upload]) -> Retriever:
    """What a thread's runs search: the index, the files sent in it with it, or those alone."""
    from searchain.tools.retrieval.uploaded import Together, files_retriever

    if not uploads:
        if ctx.uploads_searched == "alone":
            raise ValueError(
                "uploads_searched is alone, but this thread holds no file: send one with the "
                "question, or set uploads_searched to together"
            )
        return context_retriever(ctx)
    files = files_retriever(uploads, run_owner())
    return files if ctx.uploads_searched == "alone" else Together(files, context_retriever(ctx))


def run_owner() -> str | None:
    """The thread the running graph serves, or None (outside a graph, or a run of no thread)."""
    from langgraph.config import get_config

    try:
        thread = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # called outside a run
        return None
    return f"thread {thread}" if thread else None


def upload_bounds(ctx: Context) -> UploadBounds:
    """The bounds on the files a thread holds, from the context's settings."""
    return UploadBounds(ctx.upload_max_mib << 20, ctx.upload_max_pages, ctx.uploads_per_thread)
