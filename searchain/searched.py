"""What a run searches: the index its context names, and the files sent in its thread."""

from __future__ import annotations

from collections.abc import Sequence

from searchain.context import Context
from searchain.documents.uploads import Upload, UploadBounds
from searchain.tools.retrieval.resolve import resolve_retriever
from searchain.types import Retriever


def context_retriever(ctx: Context) -> Retriever:
    """The retriever a run's context names, with its index and Elasticsearch settings."""
    from searchain.tools.retrieval.elastic import ElasticSettings

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
    files = files_retriever(uploads)
    return files if ctx.uploads_searched == "alone" else Together(files, context_retriever(ctx))


def upload_bounds(ctx: Context) -> UploadBounds:
    """The bounds on the files a thread holds, from the context's settings."""
    return UploadBounds(ctx.upload_max_mib << 20, ctx.upload_max_pages, ctx.uploads_per_thread)
