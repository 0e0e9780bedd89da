"""The Elasticsearch BM25 backend, on the official client, for indexes one machine cannot hold.

Any index can be searched: the field names of title, text and id are settings, checked against
the index mapping on first use (one line naming the fields found when they are missing). An index
searchain built (its mapping says so in ``_meta``) is searched through its ``content`` copy field,
as the embedded index scores a passage; any other index is searched read-only over its title and
text fields and never written.

Builds are atomic: passages go into a fresh physical index (``NAME-<timestamp>``), which the alias
``NAME`` is moved to only once every passage is in and refreshed; searches never see a
half-built index, and a failed build leaves the previous one serving. Ids are the passage ids, so
rebuilding from the same corpus gives the same index.

A cluster is reached through several hosts (``--es-url http://a:9200,http://b:9200``): a request
that finds its node gone is retried on another, and a search that cannot reach every shard (a
red cluster) fails in one line instead of answering from the shards left: results are never
partial.

Connection settings come from arguments or the environment: ``ES_URL``, ``ES_API_KEY`` or
``ES_USERNAME``/``ES_PASSWORD``, ``ES_VERIFY_CERTS`` (TLS verification is on unless set to
``false``), ``ES_CA_CERTS``. Credentials are never printed or logged.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from searchain.indexed import Described
from searchain.redact import redact_url
from searchain.tools.retrieval.elastic.client import (
    TRANSIENT_STATUS,
    ElasticsearchError,
    ElasticSettings,
    ShardsMissing,
    make_client,
    shard_failure,
    transient,
)
from searchain.tools.retrieval.elastic.documents import (
    SOURCE_FIELD,
    document_actions,
)
from searchain.tools.retrieval.elastic.physical import (
    BUILT_BY,
    create,
    fill_and_switch,
    new_physical,
)
from searchain.tools.retrieval.fields import lookup
from searchain.types import Passage, Source

ANALYZERS = ("standard", "english")
T = TypeVar("T")

__all__ = ["ElasticRetriever", "ElasticSettings", "ElasticsearchError"]


class ElasticRetriever:
    """BM25 search over an Elasticsearch index (a ``Retriever``); one client, shared by threads."""

    def __init__(self, settings: ElasticSettings | None = None) -> None:
        self.settings = settings or ElasticSettings()
        self.url = ",".join(redact_url(host) for host in self.settings.hosts())
        self.client = make_client(self.settings)
        self._fields: list[str] | None = None  # what search matches; read from the mapping once

    def _call(self, what: str, request: Callable[[], T]) -> T:
        """Run ``request``, retrying transient failures with exponential backoff."""
        from elasticsearch import ApiError, TransportError

        # Once a node has answered that shards are missing, the cluster is up but incomplete,
        # even if a later attempt times out on a busy or failing node.
        shards_missing = False
        for attempt in range(self.settings.retries):
            try:
                return request()
            except (ApiError, TransportError, ShardsMissing) as exc:
                if not transient(exc):
                    raise self._explain(what, exc) from None
                shards_missing = shards_missing or (
                    isinstance(exc, ShardsMissing) or shard_failure(getattr(exc, "body", None))
                )
                if attempt + 1 == self.settings.retries and shards_missing:
                    raise ElasticsearchError(
                        f"Elasticsearch at {self.url} could not reach every shard of "
                        f"{self.settings.index!r} ({what} failed {self.settings.retries} times: "
                        f"{getattr(exc, 'reason', None) or 'shards failed'}): the cluster is "
                        "missing a node that held a shard; bring it back, then resume"
                    ) from None
                if attempt + 1 == self.settings.retries:
                    raise ElasticsearchError(
                        "Elasticsearch at {url} is unreachable ({what} failed {retries} times: "
                        "{error}): start it, or set {es_url}",
                        settings=("es_url",),
                        url=self.url,
                        what=what,
                        retries=self.settings.retries,
                        error=type(exc).__name__,
                    ) from None
                time.sleep(0.25 * 2**attempt)
        raise AssertionError("unreachable")

    def _explain(self, what: str, exc: Exception) -> ElasticsearchError:
        from elasticsearch import ApiError, NotFoundError

        name = self.settings.index
        if isinstance(exc, NotFoundError) and "index_not_found" in str(exc):
            return ElasticsearchError(
                "Elasticsearch index {name!r} does not exist at {url}: build it with {es_build}",
                settings=("es_build",),
                name=name,
                url=self.url,
            )
        if isinstance(exc, ApiError) and exc.meta.status in (401, 403):
            return ElasticsearchError(
                f"Elasticsearch at {self.url} refused the credentials ({exc.meta.status}): "
                "check ES_API_KEY or ES_USERNAME/ES_PASSWORD"
            )
        body = getattr(exc, "body", None)
        error = body.get("error") if isinstance(body, dict) else None
        reason = error.get("reason") if isinstance(error, dict) else None
        reason = reason or getattr(exc, "message", None) or type(exc).__name__
        return ElasticsearchError(f"Elasticsearch at {self.url}: {what} failed: {reason}")

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """Up to ``k`` passages for ``query``, best first."""
        return self.search_batch([query], k)[0]

    def search_batch(self, queries: Sequence[str], k: int = 1) -> list[list[Passage]]:
        """:meth:`search` for many queries in one round trip (``_msearch`` past one query)."""
        if not queries:
            return []
        fields = self.search_fields()
        s = self.settings
        wanted = [f for f in (s.title_field, s.text_field, s.id_field) if f and f != "_id"]
        wanted.append(SOURCE_FIELD)  # a documents index's sources (absent elsewhere: no cost)
        bodies = [
            {
                "query": {"multi_match": {"query": q, "fields": fields, "type": "most_fields"}},
                "size": k,
                "_source": {"includes": wanted},
            }
            for q in queries
        ]
        results = self._call("search", lambda: self._search(bodies))
        return [[self._passage(hit) for hit in hits] for hits in results]

    def _search(self, bodies: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """Every body's hits, or ``ShardsMissing`` when any shard could not answer."""
        index = self.settings.index
        if len(bodies) == 1:
            replies = [
                self.client.search(index=index, allow_partial_search_results=False, **bodies[0])
            ]
        else:
            header = {"index": index, "allow_partial_search_results": False}
            searches = [part for body in bodies for part in (header, body)]
            replies = self.client.msearch(searches=searches)["responses"]
        results = []
        for reply in replies:
            if "error" in reply:
                reason = reply["error"].get("reason") or str(reply["error"])
                if reply.get("status") in TRANSIENT_STATUS or shard_failure(reply):
                    raise ShardsMissing(reason)
                raise ElasticsearchError(f"Elasticsearch at {self.url}: search failed: {reason}")
            shards = reply.get("_shards", {})
            if shards.get("failed"):
                raise ShardsMissing(
                    f"{shards.get('failed', 0)} of {shards.get('total')} shards failed"
                )
            results.append(reply["hits"]["hits"])
        return results

    def _passage(self, hit: dict[str, Any]) -> Passage:
        s, source = self.settings, hit.get("_source") or {}
        passage_id = hit["_id"] if s.id_field == "_id" else lookup(source, s.id_field)
        title = lookup(source, s.title_field) if s.title_field else ""
        origin = source.get(SOURCE_FIELD)
        return Passage(
            str(passage_id or hit["_id"]),
            str(title or ""),
            str(lookup(source, s.text_field) or ""),
            float(hit["_score"] or 0.0),
            Source.of(origin),
        )

    def search_fields(self) -> list[str]:
        """The fields a query is matched against, checked against the mapping on first use.

        An index searchain built scores title and text as one document through ``content``
        (``copy_to``), as the embedded index does; any other index is matched over its title and
        text fields. A configured field the mapping lacks fails in one line naming those found.
        """
        if self._fields is not None:
            return self._fields
        s = self.settings
        name = s.index
        response = self._call("read mapping", lambda: self.client.indices.get_mapping(index=name))
        mappings = [m.get("mappings", {}) for m in response.body.values()]
        found = sorted({f for m in mappings for f in _mapped_fields(m.get("properties", {}))})
        wanted = {"title": s.title_field, "text": s.text_field}
        if s.id_field != "_id":
            wanted["id"] = s.id_field
        missing = [f"{what} field {f!r}" for what, f in wanted.items() if f and f not in found]
        if missing:
            raise ElasticsearchError(
                "Elasticsearch index {name!r} at {url} has no {missing} (its fields: {found}): "
                "name them with {es_fields}",
                settings=("es_fields",),
                name=name,
                url=self.url,
                missing=" or ".join(missing),
                found=", ".join(found) or "none",
            )
        ours = all(_built_by_searchain(m) for m in mappings)
        if ours and (s.title_field, s.text_field) == ("title", "text"):
            fields = ["content"]
        else:
            fields = [f for f in (s.text_field, s.title_field) if f]
        if s.title_boost > 0 and s.title_field:
            fields.append(f"{s.title_field}^{s.title_boost}")
        self._fields = fields
        return fields

    def exists(self) -> bool:
        """Whether the index (or alias) exists."""
        name = self.settings.index
        return bool(self._call("check", lambda: self.client.indices.exists(index=name)))

    def count(self) -> int:
        """Number of passages in the index."""
        response = self._call("count", lambda: self.client.count(index=self.settings.index))
        return int(response["count"])

    def build(
        self,
        passages: Iterable[Passage],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        analyzer: str = "standard",
        overwrite: bool = False,
        chunk_size: int = 1000,
        shards: int = 1,
        replicas: int = 0,
        workers: int = 2,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Index ``passages`` and point the alias at them; return the number indexed.

        ``k1``/``b`` default to Elasticsearch's own BM25 values. An existing alias is moved
        only with ``overwrite``; the previous physical index is then deleted. ``workers`` bulk
        requests are in flight at once.
        """
        from searchain.tools.retrieval.scoring import check_bm25_parameters

        check_bm25_parameters(k1, b)
        if analyzer not in ANALYZERS:
            raise ElasticsearchError(f"unknown analyzer {analyzer!r}: use standard or english")
        alias = self.settings.index
        previous = self.alias_targets(alias)
        if previous and not overwrite:
            raise ElasticsearchError(
                "Elasticsearch index {alias!r} already exists at {url}: pass {overwrite} to "
                "replace it",
                settings=("overwrite",),
                alias=alias,
                url=self.url,
            )
        if not previous and self._call(
            "check index", lambda: self.client.indices.exists(index=alias)
        ):
            raise ElasticsearchError(
                "{alias!r} at {url} is an index this tool did not build: choose {es_index}",
                settings=("es_index",),
                alias=alias,
                url=self.url,
            )
        physical = new_physical(self)
        documents = passages.settings() if isinstance(passages, Described) else None
        create(
            self,
            physical,
            k1=k1,
            b=b,
            analyzer=analyzer,
            shards=shards,
            replicas=replicas,
            documents=documents,
        )
        actions = self._actions(physical, passages)
        indexed = fill_and_switch(
            self,
            physical,
            previous,
            actions,
            chunk_size=chunk_size,
            workers=workers,
            progress=progress,
        )
        self.reread_mapping()
        if progress:
            progress(indexed)
        return indexed

    def reread_mapping(self) -> None:
        """Read the mapping again on next use: the alias points at a new physical index."""
        self._fields = None

    def alias_targets(self, alias: str) -> list[str]:
        """The physical indexes ``alias`` points at (none if it is no alias)."""
        found = self._call(
            "read aliases",
            lambda: self.client.options(ignore_status=404).indices.get_alias(name=alias),
        )
        return [] if found.meta.status == 404 else sorted(found.body)

    @staticmethod
    def _actions(index: str, passages: Iterable[Passage]) -> Iterator[dict[str, Any]]:
        if isinstance(passages, Described):
            yield from document_actions(index, passages.by_file())
            return
        for p in passages:
            yield {"_index": index, "_id": p.id, "_source": {"title": p.title, "text": p.text}}


def _mapped_fields(properties: dict[str, Any], prefix: str = "") -> list[str]:
    """Every field path of a mapping's ``properties``, object fields as dotted paths."""
    paths = []
    for name, spec in properties.items():
        path = f"{prefix}{name}"
        paths.append(path)
        paths += _mapped_fields(spec.get("properties", {}), f"{path}.")
    return paths


def _built_by_searchain(mapping: dict[str, Any]) -> bool:
    """Whether searchain built this index (``_meta``; before 0.2, its ``content`` copy field)."""
    if mapping.get("_meta", {}).get("built_by") == BUILT_BY:
        return True
    properties = mapping.get("properties", {})
    copy_to = properties.get("text", {}).get("copy_to")
    return "content" in properties and "content" in (
        copy_to if isinstance(copy_to, list) else [copy_to]
    )
