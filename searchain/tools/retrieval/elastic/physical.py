"""The physical indexes behind an Elasticsearch alias: made, filled, switched to in one step.

What a build and an update share (:meth:`ElasticRetriever.build`,
:mod:`searchain.tools.retrieval.elastic.update`): a new physical index (``NAME-<milliseconds>``)
is created with searchain's mapping, filled, refreshed, and only then does the alias ``NAME``
move to it, in one request; the indexes it pointed at are deleted after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from searchain.tools.retrieval.elastic.bulk import bulk_load
from searchain.tools.retrieval.elastic.client import ElasticsearchError, ElasticSettings
from searchain.tools.retrieval.elastic.documents import (
    DOCUMENT_FIELD,
    DOCUMENT_HASH_FIELD,
    SOURCE_FIELD,
)

T = TypeVar("T")

BUILT_BY = "searchain"
"""``_meta.built_by`` of the indexes searchain creates."""


class Connected(Protocol):
    """What these functions use of an ElasticRetriever (imported by it, so not named here)."""

    client: Any
    settings: ElasticSettings

    def _call(self, what: str, request: Callable[[], T]) -> T: ...


def new_physical(es: Connected) -> str:
    """A name for a new physical index behind the alias (``NAME-<milliseconds>``)."""
    return f"{es.settings.index}-{time.time_ns() // 1_000_000}"


def fill_and_switch(
    es: Connected,
    physical: str,
    previous: list[str],
    actions: Iterator[dict[str, Any]],
    *,
    chunk_size: int = 1000,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Load ``actions`` into ``physical`` (made empty), then move the alias to it in one step.

    Until the alias moves, searches read the ``previous`` physical indexes, which are
    deleted once it has; on any failure ``physical`` is deleted and the alias stays put.
    Returns the passages loaded.
    """
    alias = es.settings.index
    try:
        indexed = bulk_load(
            es.client,
            actions,
            chunk_size=chunk_size,
            workers=workers,
            retries=es.settings.retries,
            progress=progress,
        )
        if indexed == 0:
            raise ElasticsearchError("the corpus has no passages")
        es._call("refresh", lambda: es.client.indices.refresh(index=physical))
        es._call(
            "settings",
            lambda: es.client.indices.put_settings(
                index=physical, settings={"index": {"refresh_interval": "1s"}}
            ),
        )
        moves = [{"add": {"index": physical, "alias": alias}}]
        moves += [{"remove": {"index": old, "alias": alias}} for old in previous]
        es._call("move alias", lambda: es.client.indices.update_aliases(actions=moves))
    except BaseException:
        es.client.options(ignore_status=404).indices.delete(index=physical)
        raise
    for old in previous:
        es._call("delete", lambda old=old: es.client.indices.delete(index=old))
    return indexed


def built_with(es: Connected, physical: str) -> dict[str, Any]:
    """The options ``physical`` was built with, as :func:`create` takes them to make its like.

    ``k1``, ``b``, ``analyzer``, ``shards``, ``replicas``.
    """
    settings = es._call("read settings", lambda: es.client.indices.get_settings(index=physical))[
        physical
    ]["settings"]["index"]
    mapping = es._call("read mapping", lambda: es.client.indices.get_mapping(index=physical))[
        physical
    ]["mappings"]
    bm25 = settings["similarity"]["searchain_bm25"]
    return {
        "k1": float(bm25["k1"]),
        "b": float(bm25["b"]),
        "analyzer": mapping["properties"]["text"].get("analyzer", "standard"),
        "shards": int(settings["number_of_shards"]),
        "replicas": int(settings["number_of_replicas"]),
    }


def create(
    es: Connected,
    name: str,
    *,
    k1: float,
    b: float,
    analyzer: str,
    shards: int,
    replicas: int,
    documents: dict[str, Any] | None = None,
) -> None:
    """Make the empty physical index ``name``, with the mapping a searchain index has.

    BM25's ``k1``/``b``, the ``analyzer``, and (a documents index) the settings that
    ``--update`` walks again.
    """
    field = {"type": "text", "similarity": "searchain_bm25", "analyzer": analyzer}
    meta: dict[str, Any] = {"built_by": BUILT_BY}
    if documents is not None:  # what --update walks again
        meta["documents"] = documents
    mappings = {
        "_meta": meta,
        "properties": {
            "title": {**field, "copy_to": "content"},
            "text": {**field, "copy_to": "content"},
            "content": field,
            SOURCE_FIELD: {"type": "object", "enabled": False},  # stored, never searched
            DOCUMENT_FIELD: {"type": "keyword"},  # what an update deletes by
            DOCUMENT_HASH_FIELD: {"type": "keyword"},
        },
    }
    settings = {
        "number_of_shards": shards,
        "number_of_replicas": replicas,
        "refresh_interval": "-1",  # no refreshes while bulk loading; set back after
        "similarity": {"searchain_bm25": {"type": "BM25", "k1": k1, "b": b}},
    }
    try:
        es._call(
            "create index",
            lambda: es.client.indices.create(
                index=name,
                settings=settings,
                mappings=mappings,
            ),
        )
    except ElasticsearchError as exc:
        if analyzer == "english" and "analyzer [english]" in str(exc):
            raise ElasticsearchError(
                "Elasticsearch at {url} has no 'english' analyzer (its analysis-common "
                "module is missing, as in the integration-test distribution): use {analyzer}",
                settings=("analyzer",),
                url=es.url,
            ) from None
        raise
