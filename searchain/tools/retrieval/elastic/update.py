"""``searchain index --update --backend elasticsearch``: upserts and deletes by document.

The index's mapping keeps the settings it was built with (``_meta.documents``) and each passage
its document's path and content hash (keywords), so the documents it holds are read back with a
composite aggregation, a page of buckets at a time; only new and changed files are read.

The result is published as a build is: a new physical index (made with the old one's BM25
parameters, analyzer, shards and replicas) is filled with the unchanged documents' passages,
copied from the old one (a scroll, then bulk: core APIs, which a minimal distribution without
the ``reindex`` module has), and the new and changed documents' passages; the alias then moves
to it in one step and the old index is deleted. So a search sees the old version or the new one,
never a mix; an update that fails or is killed leaves the alias on the old index (a killed one
also leaves the half-filled new index, named ``NAME-<milliseconds>``, behind no alias). And the
BM25 statistics are the live passages' alone, as a fresh build's: passages deleted in place
would stay in Elasticsearch's statistics as soft deletes until a merge dropped them (12 hours
of retention by default; a force-merge did not), and on a small index moved scores by up to 21%.

The copy is the price: an update re-indexes every passage the index keeps, without reading or
extracting their files again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

from searchain.errors import SettingError
from searchain.indexed import Changes, Compared, Walk
from searchain.text import counted
from searchain.tools.retrieval.elastic.documents import (
    DOCUMENT_FIELD,
    DOCUMENT_HASH_FIELD,
    document_actions,
)
from searchain.tools.retrieval.elastic.physical import (
    built_with,
    create,
    fill_and_switch,
    new_physical,
)
from searchain.tools.retrieval.elastic.retriever import ElasticRetriever

W = TypeVar("W", bound=Walk)
"""The walk an update is handed back, as the caller made it."""


def update_elastic(
    retriever: ElasticRetriever,
    again: Callable[[dict[str, Any]], W],
    *,
    paths: Sequence[str | Path] | None = None,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> tuple[int, W, Changes]:
    """Bring the documents index behind ``retriever`` up to date; see the module.

    ``again`` walks the folder anew from the settings the index recorded (``Documents.again``).
    Returns the passages it holds after, the walk (its skipped files) and what changed.
    """
    index = retriever.settings.index
    settings = _settings(retriever)
    if paths and sorted(str(Path(p).absolute()) for p in paths) != sorted(settings["paths"]):
        raise SettingError(
            "Elasticsearch index {index!r} was built from {paths}: {update} walks those again "
            "(give them, or no path)",
            settings=("update",),
            index=index,
            paths=" ".join(settings["paths"]),
        )
    documents = again(settings)
    held = _held(retriever)
    compared, changes = documents.compare(held, progress)
    if changes.any:
        count = _republish(retriever, held, compared, settings, stage)
    else:
        count = retriever._call("count", lambda: retriever.client.count(index=index))["count"]
    return int(count), documents, changes


def _republish(
    retriever: ElasticRetriever,
    held: dict[str, tuple[str, int]],
    compared: Compared,
    settings: dict[str, Any],
    stage: Callable[[str], None] | None,
) -> int:
    """A new physical index of the kept and the fresh passages, the alias moved to it."""
    alias = retriever.settings.index
    previous = retriever.alias_targets(alias)
    if len(previous) != 1:
        raise SettingError(
            "Elasticsearch index {alias!r} is not an alias of one index, as searchain builds "
            "it: build it again with {overwrite}",
            settings=("overwrite",),
            alias=alias,
        )
    live = {record.path: record.sha256 for record, _ in compared}
    kept = {path for path, (sha, _) in held.items() if live.get(path) == sha}
    fresh = [(record, passages) for record, passages in compared if passages is not None]
    if stage:
        passages = sum(n for path, (_, n) in held.items() if path in kept)
        stage(f"copying {counted(passages, 'unchanged passage')} into the new index")
    physical = new_physical(retriever)
    create(retriever, physical, **built_with(retriever, previous[0]), documents=settings)
    actions = chain(
        _copied(retriever, previous[0], physical, kept), document_actions(physical, fresh)
    )
    indexed = fill_and_switch(retriever, physical, previous, actions)
    retriever.reread_mapping()
    return indexed


def _settings(retriever: ElasticRetriever) -> dict[str, Any]:
    index = retriever.settings.index
    response = retriever._call(
        "read mapping", lambda: retriever.client.indices.get_mapping(index=index)
    )
    metas = [m.get("mappings", {}).get("_meta", {}) for m in response.body.values()]
    settings = metas[0].get("documents") if len(metas) == 1 else None
    if not isinstance(settings, dict):
        raise SettingError(
            "Elasticsearch index {index!r} was not built from documents: {update} brings a "
            "documents index up to date (build it again with {overwrite})",
            settings=("update", "overwrite"),
            index=index,
        )
    return settings


def _held(retriever: ElasticRetriever) -> dict[str, tuple[str, int]]:
    """``{path: (sha256, passages)}`` of every document the index holds."""
    held: dict[str, tuple[str, int]] = {}
    after: dict[str, Any] | None = None
    while True:
        composite: dict[str, Any] = {
            "size": 1000,
            "sources": [
                {"path": {"terms": {"field": DOCUMENT_FIELD}}},
                {"sha": {"terms": {"field": DOCUMENT_HASH_FIELD}}},
            ],
        }
        if after:
            composite["after"] = after
        body = {"size": 0, "aggs": {"documents": {"composite": composite}}}
        reply = retriever._call(
            "read the documents held",
            lambda body=body: retriever.client.search(index=retriever.settings.index, **body),
        )
        found = reply["aggregations"]["documents"]
        for bucket in found["buckets"]:
            path, sha = bucket["key"]["path"], bucket["key"]["sha"]
            if path in held:  # two contents of one path: an update killed part-way
                sha = ""  # read it again, and delete both
            held[path] = (sha, held.get(path, ("", 0))[1] + bucket["doc_count"])
        after = found.get("after_key")
        if not found["buckets"] or after is None:
            return held


def _copied(
    retriever: ElasticRetriever, old: str, physical: str, kept: set[str]
) -> Iterator[dict[str, Any]]:
    """Bulk actions that copy into ``physical`` the passages of ``old`` whose document is kept."""
    client = retriever.client
    reply = retriever._call(
        "read the kept passages",
        lambda: client.search(index=old, size=1000, scroll="5m", sort=["_doc"]),
    )
    try:
        while reply["hits"]["hits"]:
            for hit in reply["hits"]["hits"]:
                if hit["_source"].get(DOCUMENT_FIELD) in kept:
                    yield {"_index": physical, "_id": hit["_id"], "_source": hit["_source"]}
            scroll = reply["_scroll_id"]
            reply = retriever._call(
                "read the kept passages",
                lambda scroll=scroll: client.scroll(scroll_id=scroll, scroll="5m"),
            )
    finally:
        if reply.get("_scroll_id"):
            client.options(ignore_status=404).clear_scroll(scroll_id=reply["_scroll_id"])
