"""How searchain reaches an Elasticsearch cluster: settings, the client, what a retry is worth.

Settings come from arguments or the environment: ``ES_URL`` (one URL, or several comma-separated:
nodes of one cluster, failed over between), ``ES_API_KEY`` or ``ES_USERNAME``/``ES_PASSWORD``,
``ES_VERIFY_CERTS`` (TLS verification is on unless set to ``false``), ``ES_CA_CERTS``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from searchain.errors import Worded

DEFAULT_URL = "http://localhost:9200"
ELASTIC_HINT = "the Elasticsearch backend needs: pip install 'searchain[elasticsearch]'"


class ElasticsearchError(Worded, ValueError):
    """A failure talking to Elasticsearch, said in one line with what to do."""


@dataclass(frozen=True)
class ElasticSettings:
    """Where and how to reach the cluster."""

    url: str = ""
    """Cluster URL, or several comma-separated (nodes of one cluster, failed over between);
    empty reads ``ES_URL``, then ``http://localhost:9200``."""
    index: str = "searchain"
    """Index (alias) name."""
    title_boost: float = 0.0
    """Extra weight of a title match, on top of title and text scored as one document."""
    title_field: str = "title"
    """Field holding a passage's title (dotted for an object field); empty for none."""
    text_field: str = "text"
    """Field holding a passage's text (dotted for an object field)."""
    id_field: str = "_id"
    """Where a passage's id comes from: the document ``_id``, or a field of the document."""
    retries: int = 3
    """Attempts for a request that fails transiently (connection lost, 429, 502-504)."""
    timeout: float = 10.0
    """Seconds before a request is abandoned."""

    def resolved_url(self) -> str:
        """The URL(s) in force (argument, ``ES_URL``, or the default)."""
        return self.url or os.environ.get("ES_URL") or DEFAULT_URL

    def hosts(self) -> list[str]:
        """Every node's URL."""
        hosts = [h.strip() for h in self.resolved_url().split(",") if h.strip()]
        if not hosts:
            raise ElasticsearchError(f"no Elasticsearch URL in {self.resolved_url()!r}")
        return hosts


def make_client(settings: ElasticSettings) -> Any:
    """The official client for every host; retries are the caller's (``max_retries=0``)."""
    try:
        from elasticsearch import Elasticsearch
    except ImportError as exc:
        raise ImportError(ELASTIC_HINT) from exc
    kwargs: dict[str, Any] = {
        "request_timeout": settings.timeout,
        "max_retries": 0,  # retries and their backoff are ours (see _call)
        "verify_certs": os.environ.get("ES_VERIFY_CERTS", "true").lower() != "false",
    }
    if os.environ.get("ES_CA_CERTS"):
        kwargs["ca_certs"] = os.environ["ES_CA_CERTS"]
    if os.environ.get("ES_API_KEY"):
        kwargs["api_key"] = os.environ["ES_API_KEY"]
    elif os.environ.get("ES_USERNAME"):
        kwargs["basic_auth"] = (os.environ["ES_USERNAME"], os.environ.get("ES_PASSWORD", ""))
    return Elasticsearch(settings.hosts(), **kwargs)


TRANSIENT_STATUS = (429, 502, 503, 504)


class ShardsMissing(Exception):
    """A search some shards could not answer (a node lost, a cluster red): worth a retry."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def transient(exc: Exception) -> bool:
    """Whether a failure may pass on a retry (another node, a busy or recovering cluster)."""
    from elasticsearch import ApiError, ConnectionError, ConnectionTimeout

    if isinstance(exc, ConnectionError | ConnectionTimeout | ShardsMissing):
        return True
    return isinstance(exc, ApiError) and (
        exc.meta.status in TRANSIENT_STATUS or shard_failure(exc.body)
    )


def shard_failure(body: Any) -> bool:
    """Whether an error reply says shards failed (what a node lost mid-search gives)."""
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind in ("search_phase_execution_exception", "no_shard_available_action_exception")
