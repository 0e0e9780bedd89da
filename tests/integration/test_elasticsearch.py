"""The Elasticsearch backend against a real server (scripts/elasticsearch.sh)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from searchain.context import Context
from searchain.documents.collection import Documents
from searchain.eval.datasets import data_dir, musique_hops, pooled_corpus, records
from searchain.graph.searchain import build_graph
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.elastic.retriever import (
    ElasticRetriever,
    ElasticsearchError,
    ElasticSettings,
)
from searchain.types import Passage
from tests.conftest import ScriptedReplies, TableReader, cli_line, require_module


@pytest.fixture(autouse=True, scope="module")
def _elasticsearch_client():
    """Every test here talks to the server through the 'elasticsearch' extra's client."""
    require_module("elasticsearch", "elasticsearch")


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
    with pytest.raises(ElasticsearchError, match=r"already exists .* pass overwrite=True") as no:
        es.build([Passage("c", "C", "gamma")])
    assert "already exists at" in cli_line(no.value) and "pass --overwrite" in cli_line(no.value)

    def broken():  # fails while both bulk workers are sending
        for i in range(2500):
            yield Passage(f"c{i}", "C", "gamma text")
        raise ValueError("corpus.jsonl:2501: not valid JSON")

    with pytest.raises(ValueError, match=r"corpus\.jsonl:2501"):
        es.build(broken(), overwrite=True, chunk_size=200, workers=2)
    assert es.count() == 2 and es.search("beta")[0].id == "b"
    assert len(physical_indices(es)) == 1  # the half-built index was deleted


def test_missing_index_names_index_and_url(es_url):
    with pytest.raises(ElasticsearchError, match=r"index 'absent' does not exist at http://127\.0"):
        retriever(es_url, "absent").search("anything")


def test_stopped_server_gives_one_clear_error_after_its_retries(monkeypatch, connections):
    monkeypatch.setenv("ES_PASSWORD", "s3cret-pw")
    monkeypatch.setenv("ES_USERNAME", "elastic")
    es = ElasticRetriever(ElasticSettings(url="http://user:other-pw@127.0.0.1:9", index="x"))
    with pytest.raises(ElasticsearchError) as caught:
        es.search("anything")
    message = str(caught.value)
    assert (
        "Elasticsearch at http://127.0.0.1:9 is unreachable (read mapping failed 3 times" in message
    )
    assert "s3cret-pw" not in message and "other-pw" not in message
    assert [port for _, port in connections] == [9, 9, 9]  # one try per retry, then it gave up


def test_english_analyzer_absent_on_the_test_distribution(es_url):
    es = retriever(es_url, "english-test")
    try:
        es.build([Passage("a", "A", "running dogs")], analyzer="english", overwrite=True)
    except ElasticsearchError as exc:  # the integration-test distribution has no analysis-common
        assert "has no 'english' analyzer" in str(exc) and "analyzer='standard'" in str(exc)
        assert cli_line(exc).endswith("use --analyzer standard")
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
        built = embedded.build(
            corpus, Path(tmp) / "i", embedded.Options(k1=1.2, tokenizer="standard")
        )
        emb = [(built.search(q) or [None])[0] for q in queries]
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
    assert agree / len(queries) >= 0.9  # measured 0.977 (293/300), as in docs/retrieval.md


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
    assert "indexed 25 passages (jsonl) into Elasticsearch index cli-test" in done.stderr
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


FOREIGN_DOCS = {
    "n1": {
        "headline": "Lorenzo Monaco",
        "body": "Lorenzo Monaco was influenced by Giotto.",
        "doc_id": "wiki-17",
    },
    "n2": {
        "headline": "Giotto",
        "body": "Giotto di Bondone was a Florentine painter.",
        "doc_id": "wiki-18",
    },
}


@pytest.fixture
def foreign_index(es_url):
    """An index the user built themselves: their field names, no `content` copy field."""
    es = retriever(es_url, "x")
    name = f"theirs-{time.time_ns()}"
    es.client.indices.create(
        index=name,
        mappings={
            "properties": {
                "headline": {"type": "text"},
                "body": {"type": "text"},
                "doc_id": {"type": "keyword"},
            }
        },
    )
    for doc_id, doc in FOREIGN_DOCS.items():
        es.client.index(index=name, id=doc_id, document=doc)
    es.client.indices.refresh(index=name)
    yield name
    es.client.indices.delete(index=name)


def test_a_foreign_mapping_is_refused_naming_its_fields_then_searched_by_them(
    es_url, foreign_index
):
    with pytest.raises(ElasticsearchError) as refused:
        retriever(es_url, foreign_index).search("Lorenzo Monaco")
    message = str(refused.value)
    assert "\n" not in message and "title field 'title'" in message
    assert "its fields: body, doc_id, headline" in message and "title_field" in message
    assert "--es-title-field" in cli_line(refused.value)

    settings = ElasticSettings(
        url=es_url, index=foreign_index, title_field="headline", text_field="body"
    )
    [hit, *_] = ElasticRetriever(settings).search("Who influenced Lorenzo Monaco?", k=2)
    assert (hit.id, hit.title) == ("n1", "Lorenzo Monaco") and "Giotto" in hit.text
    by_field = ElasticRetriever(
        ElasticSettings(
            url=es_url, index=foreign_index, title_field="", text_field="body", id_field="doc_id"
        )
    )
    assert [(h.id, h.title) for h in by_field.search("Florentine painter")] == [("wiki-18", "")]
    with pytest.raises(ElasticsearchError, match="no id field 'uid'"):
        ElasticRetriever(replace(settings, id_field="uid")).search("Giotto")


def test_title_and_text_without_the_content_field_are_searched(es_url):
    """An index with searchain's field names that searchain did not build (no `content`)."""
    es = retriever(es_url, f"plain-{time.time_ns()}")
    es.client.indices.create(
        index=es.settings.index,
        mappings={"properties": {"title": {"type": "text"}, "text": {"type": "text"}}},
    )
    es.client.index(index=es.settings.index, id="a", document={"title": "Giotto", "text": "x y"})
    es.client.indices.refresh(index=es.settings.index)
    try:
        assert es.search_fields() == ["text", "title"]
        assert [(h.id, h.title) for h in es.search("Giotto")] == [("a", "Giotto")]
    finally:
        es.client.indices.delete(index=es.settings.index)


def test_the_cli_on_a_foreign_index_reads_and_never_writes(es_url, foreign_index, tmp_path):
    from tests.integration.test_cli import searchain

    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            {
                "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
                "trace": "Giotto [1]. So the final answer is Giotto.",
                "reader": "Answer: Giotto\nConfidence: 0.9",
            }
        )
    )
    common = ["--backend", "elasticsearch", "--es-url", es_url, "--es-index", foreign_index]
    ask = ["ask", "Who influenced Lorenzo Monaco?", *common, "--llm", f"scripted:{script}"]
    ask += ["--reader", "llm", "--db", str(tmp_path / "t.sqlite"), "--json"]
    refused = searchain(*ask)
    assert refused.returncode == 1
    [line] = refused.stderr.strip().splitlines()
    assert "its fields: body, doc_id, headline" in line

    done = searchain(*ask, "--es-title-field", "headline", "--es-text-field", "body")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [(r["id"], r["title"]) for r in result["references"]] == [("n1", "Lorenzo Monaco")]

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "z", "title": "Z", "text": "zeta"}) + "\n")
    overwrite = searchain("index", str(corpus), *common, "--overwrite")
    assert overwrite.returncode == 1 and "did not build" in overwrite.stderr
    assert retriever(es_url, foreign_index).client.count(index=foreign_index)["count"] == 2


def test_langchain_elasticsearch_retrievers_keep_real_ids_and_titles(es_url, pooled):
    """langchain-elasticsearch's retriever and store over the same real index, as backends."""
    lces = require_module("langchain_elasticsearch", "elasticsearch")
    from searchain.tools.retrieval.resolve import resolve_retriever

    _, corpus, es = pooled
    by_id = {p.id: p for p in corpus}
    query = "Kevin Drew Broken Social Scene"
    native = es.search(query, k=1)[0]

    def content_match(q):
        return {"query": {"match": {"content": q}}, "size": 3}

    # The client is passed in: the integration-test server lacks `GET /`, which es_url= calls.
    raw = lces.ElasticsearchRetriever(
        index_name="pooled-test", body_func=content_match, content_field="text", client=es.client
    )
    [hit] = resolve_retriever(raw).search(query, k=1)
    assert hit.id == native.id and hit.title == by_id[native.id].title
    assert hit.text == by_id[native.id].text and hit.score == pytest.approx(native.score)

    # A store over an existing index, searched with BM25: its documents carry no id of their own,
    # so the adapter gives each a stable content id (the same passage gets the same id).
    store_index = f"lc-store-{time.time_ns()}"
    store = lces.ElasticsearchStore(
        index_name=store_index, client=es.client, strategy=lces.BM25Strategy()
    )
    store.add_texts(
        [p.text for p in corpus[:50]],
        metadatas=[{"title": p.title} for p in corpus[:50]],
        ids=[p.id for p in corpus[:50]],
        refresh_indices=True,
    )
    try:
        adapter = resolve_retriever(store.as_retriever(search_kwargs={"k": 3}))
        target = corpus[7]
        hits = adapter.search(target.text, k=3)
        assert hits[0].title == target.title and hits[0].text == target.text
        assert [h.id for h in adapter.search(target.text, k=3)] == [h.id for h in hits]
        assert target.text not in hits[0].id and "#" not in hits[0].id
    finally:
        es.client.indices.delete(index=store_index)


def test_batch_search_is_one_msearch_with_the_same_results(pooled, monkeypatch):
    _, _, es = pooled
    es.search_fields()  # the mapping is read once per retriever: read it before counting
    sent: list[tuple[str, str]] = []
    real = es.client.perform_request

    def counted(method, path, **kwargs):  # every request the client sends, then sent for real
        sent.append((method, path))
        return real(method, path, **kwargs)

    monkeypatch.setattr(es.client, "perform_request", counted)
    queries = ["Kevin Drew Broken Social Scene", "Lorenzo Monaco", "qqqqzzzzxx"]
    batch = es.search_batch(queries, k=2)
    assert sent == [("POST", "/_msearch")]  # three queries, one round trip
    sent.clear()
    one_by_one = [es.search(q, k=2) for q in queries]
    assert [path for _, path in sent] == [f"/{es.settings.index}/_search"] * 3
    assert batch == one_by_one and batch[0] and batch[2] == []
    sent.clear()
    assert es.search_batch([], k=1) == [] and sent == []


def index_documents(es_url: str, folder, name: str) -> subprocess.CompletedProcess:
    """``searchain index FOLDER`` into the Elasticsearch index ``name`` (replaced)."""
    return subprocess.run(
        [sys.executable, "-m", "searchain", "index", str(folder), "--backend", "elasticsearch",
         "--es-url", es_url, "--es-index", name, "--overwrite"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_documents_keep_their_sources_in_elasticsearch(es_url, tmp_path):
    from tests.documents import write_folder

    folder = write_folder(tmp_path / "archive")
    done = index_documents(es_url, folder, "documents-test")
    assert done.returncode == 3, done.stderr  # the scanned page, named
    assert "indexed 5 files, 9 passages into Elasticsearch index documents-test" in done.stderr
    (found,) = retriever(es_url, "documents-test").search("Lorenzo Monaco influenced", 1)
    assert found.id == "painters.pdf#2" and found.source is not None
    assert found.source.cite() == "painters.pdf, p. 3"
    (guide,) = retriever(es_url, "documents-test").search("start scripts server.sh", 1)
    assert guide.source is not None and guide.source.anchor == "start-it"


def test_an_update_upserts_and_deletes_by_document_scored_as_a_fresh_build(es_url, tmp_path):
    from tests.documents import write_folder

    folder = write_folder(tmp_path / "archive")
    cli = [sys.executable, "-m", "searchain", "index", "--backend", "elasticsearch",
           "--es-url", es_url]  # fmt: skip
    built = subprocess.run([*cli, str(folder), "--es-index", "upd", "--overwrite"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert built.returncode == 3, built.stderr
    (folder / "guides" / "server.md").write_text("# Team server\n\n## Stop it\n\nRun stop.\n")
    (folder / "notes.docx").unlink()
    (folder / "added.md").write_text("# Added\n\nA new page about frescoes in Padua.\n")
    done = subprocess.run([*cli, "--es-index", "upd", "--update"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "updated Elasticsearch index upd at " in done.stderr
    assert "1 added, 1 changed, 1 removed, 3 unchanged (8 passages)" in done.stderr
    fresh = subprocess.run([*cli, str(folder), "--es-index", "upd-fresh", "--overwrite"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert fresh.returncode == 3, fresh.stderr
    updated, rebuilt = retriever(es_url, "upd"), retriever(es_url, "upd-fresh")
    everything = "team server stop run frescoes padua giotto painters reading guide plain notes"
    # The same passages, scored as a fresh build's: the deleted count nowhere. (Equal scores
    # come in the order of Elasticsearch's internal ids, which a parallel bulk load does not fix.)
    held = sorted((-p.score, p.id, p.text, p.source) for p in updated.search(everything, 50))
    assert held == sorted(
        (-p.score, p.id, p.text, p.source) for p in rebuilt.search(everything, 50)
    )
    assert len(held) == 8 and len(updated.alias_targets("upd")) == 1
    assert not updated.search("budget approved march", 10)  # notes.docx's passages are gone
    assert updated.search("stop", 1)[0].id == "guides/server.md#2"  # the changed file's new text
    again = subprocess.run([*cli, "--es-index", "upd", "--update"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert "up to date Elasticsearch index upd" in again.stderr, again.stderr


def test_an_update_that_fails_part_way_leaves_the_old_index_searched(es_url, tmp_path, monkeypatch):
    from searchain.tools.retrieval.elastic import update as elastic_update
    from tests.documents import write_folder

    folder = write_folder(tmp_path / "archive")
    built = index_documents(es_url, folder, "upd-fail")
    assert built.returncode == 3, built.stderr
    es = retriever(es_url, "upd-fail")
    before, physical = es.search("team server start", 5), es.alias_targets("upd-fail")
    (folder / "guides" / "server.md").write_text("# Team server\n\n## Stop it\n\nRun stop.\n")

    def torn(index, documents):
        yield from []
        raise KeyboardInterrupt  # as a person's Ctrl-C in the middle of the copy

    monkeypatch.setattr(elastic_update, "document_actions", torn)
    with pytest.raises(KeyboardInterrupt):
        elastic_update.update_elastic(es, Documents.again)
    assert es.alias_targets("upd-fail") == physical and es.search("team server start", 5) == before
    indexes = es.client.indices.get(index="upd-fail-*")
    assert sorted(indexes) == physical  # the half-filled new index deleted
