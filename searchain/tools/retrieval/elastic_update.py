"""``searchain index --update --backend elasticsearch``: upserts and deletes by document.

The index's mapping keeps the settings it was built with (``_meta.documents``) and each passage
its document's path and content hash (keywords), so the documents it holds are read back with a
composite aggregation, a page of buckets at a time. A changed or removed document's passages
are deleted (their ids found by a scroll, deleted in bulk), the new and changed documents'
passages indexed (their ids, ``PATH#n``, are the fresh build's), and the index refreshed.

Its BM25 statistics are not yet the live passages' alone: Elasticsearch keeps deleted documents
as soft deletes (for recovery, under a retention lease of 12 hours by default), and until a merge
may drop them they count in document frequencies and the passage count, so scores differ from
a fresh build's (the test measured up to 21% on a small index; a force-merge, even to one
segment, did not drop them). The embedded index's update is exact.

Unlike the embedded index's switch, the change is not atomic: a search during the update may
see a changed document's passages missing for a moment (never a mix of two versions of one
passage: ids are replaced whole). An update killed part-way leaves the index consistent per
document; the next update finds what it did not finish (hashes differ) and does it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from searchain.documents.collection import Changes, Documents
from searchain.tools.retrieval.elastic import ElasticRetriever
from searchain.tools.retrieval.elastic_bulk import bulk_load
from searchain.tools.retrieval.elastic_documents import (
    DOCUMENT_FIELD,
    DOCUMENT_HASH_FIELD,
    document_actions,
)

DELETE_CHUNK = 1000
"""Documents deleted per delete-by-query request."""


def update_elastic(
    retriever: ElasticRetriever,
    *,
    paths: Sequence[str | Path] | None = None,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> tuple[int, Documents, Changes]:
    """Bring the documents index behind ``retriever`` up to date; see the module.

    Returns the passages it holds after, the walk (its skipped files) and what changed.
    """
    index = retriever.settings.index
    settings = _settings(retriever)
    if paths and sorted(str(Path(p).absolute()) for p in paths) != sorted(settings["paths"]):
        raise ValueError(
            f"Elasticsearch index {index!r} was built from {' '.join(settings['paths'])}: "
            "--update walks those again (give them, or no path)"
        )
    documents = Documents.again(settings)
    held = _held(retriever)
    compared, changes = documents.compare(held, progress)
    if changes.any:
        if stage:
            stage(f"updating: {changes}")
        live = {record.path: record for record, _ in compared}
        stale = [
            path for path, (sha, _) in held.items() if path not in live or live[path].sha256 != sha
        ]
        _delete(retriever, stale)
        fresh = [(record, passages) for record, passages in compared if passages is not None]
        bulk_load(
            retriever.client,
            document_actions(index, fresh),
            chunk_size=1000,
            workers=2,
            retries=retriever.settings.retries,
        )
        client = retriever.client
        retriever._call("refresh", lambda: client.indices.refresh(index=index))
    count = retriever._call("count", lambda: retriever.client.count(index=index))["count"]
    return int(count), documents, changes


def _settings(retriever: ElasticRetriever) -> dict[str, Any]:
    index = retriever.settings.index
    response = retriever._call(
        "read mapping", lambda: retriever.client.indices.get_mapping(index=index)
    )
    metas = [m.get("mappings", {}).get("_meta", {}) for m in response.body.values()]
    settings = metas[0].get("documents") if len(metas) == 1 else None
    if not isinstance(settings, dict):
        raise ValueError(
            f"Elasticsearch index {index!r} was not built from documents: --update brings a "
            "documents index up to date (build it again with --overwrite)"
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


def _delete(retriever: ElasticRetriever, paths: list[str]) -> None:
    """Delete the passages of ``paths``' documents.

    Their ids are found with a scroll and deleted in bulk, both core APIs: delete-by-query lives
    in the ``reindex`` module, which a minimal distribution (the tests') does not have.
    """
    index, client = retriever.settings.index, retriever.client
    for start in range(0, len(paths), DELETE_CHUNK):
        chunk = paths[start : start + DELETE_CHUNK]
        ids = _ids_of(retriever, chunk)
        actions = ({"_op_type": "delete", "_index": index, "_id": i} for i in ids)
        bulk_load(client, actions, chunk_size=1000, workers=1, retries=retriever.settings.retries)
    retriever._call("refresh", lambda: client.indices.refresh(index=index))


def _ids_of(retriever: ElasticRetriever, paths: list[str]) -> list[str]:
    """The ids of every passage of ``paths``' documents."""
    client = retriever.client
    reply = retriever._call(
        "find changed documents",
        lambda: client.search(
            index=retriever.settings.index,
            query={"terms": {DOCUMENT_FIELD: paths}},
            source=False,
            size=1000,
            scroll="2m",
        ),
    )
    ids: list[str] = []
    try:
        while reply["hits"]["hits"]:
            ids += [hit["_id"] for hit in reply["hits"]["hits"]]
            scroll = reply["_scroll_id"]
            reply = retriever._call(
                "find changed documents",
                lambda scroll=scroll: client.scroll(scroll_id=scroll, scroll="2m"),
            )
    finally:
        if reply.get("_scroll_id"):
            client.options(ignore_status=404).clear_scroll(scroll_id=reply["_scroll_id"])
    return ids
