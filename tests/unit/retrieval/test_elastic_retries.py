"""How the Elasticsearch backend names a failure after its retries (no server needed)."""

from __future__ import annotations

import pytest

from tests.conftest import require_module


def failing(*errors: Exception):
    """A request that raises ``errors`` one per call."""
    queue = list(errors)

    def request():
        raise queue.pop(0)

    return request


@pytest.mark.parametrize("last", ["timeout", "missing"])
def test_missing_shards_seen_once_name_the_failure_whatever_the_last_attempt(last):
    require_module("elasticsearch", "elasticsearch")
    from elasticsearch import ConnectionTimeout

    from searchain.tools.retrieval.elastic.client import ElasticsearchError, ShardsMissing
    from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

    es = ElasticRetriever(ElasticSettings(url="http://127.0.0.1:9", index="red", retries=3))
    end = ConnectionTimeout("timed out") if last == "timeout" else ShardsMissing("shard 1")
    with pytest.raises(ElasticsearchError) as caught:
        es._call("search", failing(ShardsMissing("shard 1"), ConnectionTimeout("slow"), end))
    assert "could not reach every shard of 'red'" in str(caught.value)


def test_a_cluster_that_never_answers_is_unreachable():
    require_module("elasticsearch", "elasticsearch")
    from elasticsearch import ConnectionTimeout

    from searchain.tools.retrieval.elastic.client import ElasticsearchError
    from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

    es = ElasticRetriever(ElasticSettings(url="http://127.0.0.1:9", index="red", retries=2))
    with pytest.raises(ElasticsearchError, match="is unreachable"):
        es._call("search", failing(ConnectionTimeout("a"), ConnectionTimeout("b")))
