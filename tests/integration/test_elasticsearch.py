"""The Elasticsearch backend against a real server (scripts/elasticsearch.sh)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("elasticsearch", reason="needs the 'elasticsearch' extra")

from searchain.context import Context
from searchain.eval.datasets import data_dir, musique_hops, pooled_corpus, records
from searchain.graph.searchain import build_graph
from searchain.tools.base import Passage
from searchain.tools.bm25 import BM25Index
from searchain.tools.elastic import ElasticRetriever, ElasticsearchError, ElasticSettings
from tests.conftest import ScriptedReplies, TableReader


def retriever(url: str, index: str) -> ElasticRetriever:
    return ElasticRetriever(ElasticSettings(url=url, index=index))


@pytest.fixture(scope="module")
def pooled(es_url, shared_data):
    root = data_dir(shared_data)
    corpus = pooled_corpus(root)
    es = retriever(es_url, "pooled-test")
    assert es.build(corpus, overwrite=True) == len(corpus)
    return root, corpus, es


def physical_indices(es: ElasticRetriever) -> list[str]:
    return sorted(es.client.indices.get(index=f"{es.settings.index}-*").body)


def test_index_and_search_the_pooled_corpus(pooled):
    _, corpus, es = pooled
    assert es.count() == len(corpus) == 6404
    hits = es.search("Kevin Drew Broken Social Scene", k=3)
    assert 1 <= len(hits) <= 3 and all(isinstance(h, Passage) for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    by_id = {p.id: p for p in corpus}
    for hit in hits:  # the same passage model as the embedded backend
        assert (hit.title, hit.text) == (by_id[hit.id].title, by_id[hit.id].text)


def test_reindexing_the_same_corpus_is_idempotent(pooled):
    _, corpus, es = pooled
    queries = ["Where was Kevin Drew born?", "Mountrail County capital", "Arthur's Magazine"]
    before = [es.search(q, k=3) for q in queries]
    assert es.build(corpus, overwrite=True) == len(corpus)
    assert es.count() == len(corpus)
    assert [[h.id for h in es.search(q, k=3)] for q in queries] == [
        [h.id for h in b] for b in before
    ]
    assert len(physical_indices(es)) == 1  # the previous physical index was dropped


def test_existing_index_needs_overwrite_and_failed_builds_keep_the_old_one(es_url):
    es = retriever(es_url, "guarded")
    es.build([Passage("a", "A", "alpha text"), Passage("b", "B", "beta text")], overwrite=True)
    with pytest.raises(ElasticsearchError, match=r"already exists .* pass --overwrite"):
        es.build([Passage("c", "C", "gamma")])

    def broken():
        yield Passage("c", "C", "gamma text")
        raise ValueError("corpus.jsonl:2: not valid JSON")

    with pytest.raises(ValueError, match=r"corpus\.jsonl:2"):
        es.build(broken(), overwrite=True)
    assert es.count() == 2 and es.search("beta")[0].id == "b"
    assert len(physical_indices(es)) == 1  # the half-built index was deleted


def test_missing_index_names_index_and_url(es_url):
    with pytest.raises(ElasticsearchError, match=r"index 'absent' does not exist at http://127\.0"):
        retriever(es_url, "absent").search("anything")


def test_stopped_server_gives_one_clear_error_without_hanging(monkeypatch):
    monkeypatch.setenv("ES_PASSWORD", "s3cret-pw")
    monkeypatch.setenv("ES_USERNAME", "elastic")
    es = ElasticRetriever(ElasticSettings(url="http://user:other-pw@127.0.0.1:9", index="x"))
    started = time.monotonic()
    with pytest.raises(ElasticsearchError) as caught:
        es.search("anything")
    message = str(caught.value)
    assert "Elasticsearch at http://127.0.0.1:9 is unreachable" in message
    assert "s3cret-pw" not in message and "other-pw" not in message
    assert time.monotonic() - started < 60  # retried with backoff, then gave up


def test_english_analyzer_absent_on_the_test_distribution(es_url):
    es = retriever(es_url, "english-test")
    try:
        es.build([Passage("a", "A", "running dogs")], analyzer="english", overwrite=True)
    except ElasticsearchError as exc:  # the integration-test distribution has no analysis-common
        assert "has no 'english' analyzer" in str(exc) and "--analyzer standard" in str(exc)
        assert es.client.indices.get(index="english-test-*").body == {}
    else:  # a full distribution: stemming works
        assert es.search("dog run")[0].id == "a"


def test_the_graph_runs_on_elasticsearch(pooled, es_url):
    llm = ScriptedReplies(
        replies=[
            "[Query 1]: Van Hook Township >> located in the administrative territorial entity\n"
            "[Answer 1]: Mountrail County",
            "Mountrail County [1]. So the final answer is Mountrail County.",
        ]
    )
    out = build_graph().invoke(
        {"question": "Where is Van Hook Township?"},
        context=Context(
            llm=llm,
            retriever="elasticsearch",
            es_url=es_url,
            es_index="pooled-test",
            reader=TableReader({}),
        ),
    )
    assert out["references"][0].title.startswith("Van Hook Township")


def test_parity_with_the_embedded_backend(pooled):
    """Same corpus, same queries, same BM25 parameters: top-1 agreement and gold hit rates."""
    root, corpus, es = pooled
    hops = musique_hops(root, "tune")
    hotpot = list(records(root, "hotpotqa", "tune"))
    queries = [h.question for h in hops] + [r["question"] for r in hotpot]
    with tempfile.TemporaryDirectory() as tmp:
        embedded = BM25Index.build(corpus, Path(tmp) / "i", k1=1.2, tokenizer="standard")
        emb = [(embedded.search(q) or [None])[0] for q in queries]
    ela = [(es.search(q) or [None])[0] for q in queries]
    agree = sum(
        (a.id if a else None) == (b.id if b else None) for a, b in zip(emb, ela, strict=True)
    )
    gold_titles = [{t for t, _ in r["supporting_facts"]} for r in hotpot]

    def hit_rates(top):
        musique = sum(
            bool(p) and (p.title, p.text) == h.gold for p, h in zip(top, hops, strict=False)
        )
        hotpot_hits = sum(
            bool(p) and p.title in g for p, g in zip(top[len(hops) :], gold_titles, strict=True)
        )
        return musique / len(hops), hotpot_hits / len(hotpot)

    print(
        f"\ntop-1 agreement embedded vs Elasticsearch: {agree}/{len(queries)} = "
        f"{agree / len(queries):.3f}"
    )
    print(
        "gold hit rate (MuSiQue hops, HotpotQA questions): embedded {:.3f} {:.3f}, "
        "Elasticsearch {:.3f} {:.3f}".format(*hit_rates(emb), *hit_rates(ela))
    )
    assert agree / len(queries) >= 0.9  # measured 0.967


def test_cli_indexes_into_elasticsearch(es_url, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": f"p{i}", "title": f"T{i}", "text": f"word{i} common"}) + "\n"
            for i in range(25)
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "searchain",
            "index",
            str(corpus),
            "--backend",
            "elasticsearch",
            "--es-url",
            es_url,
            "--es-index",
            "cli-test",
            "--overwrite",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "indexed 25 passages into Elasticsearch index cli-test" in done.stderr
    assert retriever(es_url, "cli-test").search("word7")[0].id == "p7"


def test_eval_builds_the_pooled_corpus_into_elasticsearch_once(es_url, shared_data, tmp_path):
    """`searchain eval --backend elasticsearch`: the index is built if absent, then reused."""
    name = f"eval-test-{time.time_ns()}"

    def evaluate(limit: str) -> subprocess.CompletedProcess[str]:
        args = ["eval", "--dataset", "musique", "--method", "searchain", "--llm", "simulated"]
        args += ["--reader", "simulated", "--backend", "elasticsearch", "--es-url", es_url]
        args += ["--es-index", name, "--limit", limit, "--out", str(tmp_path / "r.jsonl")]
        return subprocess.run(
            [sys.executable, "-m", "searchain", *args],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "SEARCHAIN_DATA_DIR": str(shared_data)},
        )

    first = evaluate("2")
    assert first.returncode == 0, first.stderr
    es = retriever(es_url, name)
    assert es.count() == 6404
    built = physical_indices(es)
    second = evaluate("3")
    assert second.returncode == 0 and "1 answered now, 3 in all" in second.stderr
    assert physical_indices(es) == built  # reused, not rebuilt
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert {line["config"]["backend"] for line in lines} == {"elasticsearch"}
    assert all(line["sources"] for line in lines)
