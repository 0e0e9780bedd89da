"""Elasticsearch as a 3-node cluster (scripts/elasticsearch.sh start --nodes 3): a node SIGKILLed
mid-run loses no question; a cluster gone red fails a question in one line, and its thread resumes
once the cluster is back."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from searchain.eval.datasets import pooled_corpus
from searchain.eval.runner import read_results
from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings
from tests.conftest import ROOT, require, require_module
from tests.integration.test_cli import searchain
from tests.integration.test_resume import SCRIPT, Q
from tests.server import write_script

SCRIPT_PATH = str(ROOT / "scripts" / "elasticsearch.sh")


@pytest.fixture(scope="module")
def cluster():
    """``(urls, ES_BASE)`` of the 3-node cluster .ci/run starts (or one started here)."""
    require_module("elasticsearch", "elasticsearch")
    base = os.environ.get("SEARCHAIN_TEST_ES_CLUSTER_BASE", "/tmp/searchain-test-es-cluster")
    state = os.environ.get("SEARCHAIN_TEST_ES_CLUSTER_STATE", f"{base}/current")
    env = {**os.environ, "ES_BASE": base, "ES_STATE": state, "ES_HEAP": "256m"}
    urls = os.environ.get("SEARCHAIN_TEST_ES_CLUSTER")
    started = False
    if not urls:
        done = subprocess.run(
            [SCRIPT_PATH, "start", "--nodes", "3"],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        require(done.returncode == 0, f"could not start a 3-node cluster: {done.stderr[-500:]}")
        urls, started = done.stdout.strip().splitlines()[-1], True
    assert len(urls.split(",")) == 3
    yield urls, env
    if started:
        subprocess.run([SCRIPT_PATH, "stop"], env=env, capture_output=True, timeout=300)


def node(env: dict, action: str, number: int) -> None:
    done = subprocess.run(
        [SCRIPT_PATH, action, str(number)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr


def eval_args(urls: str, out: Path) -> list[str]:
    return [
        "eval", "--dataset", "musique", "--split", "report", "--method", "searchain",
        "--llm", "simulated", "--reader", "simulated", "--p", "0.3", "--u", "0.2", "--limit", "20",
        "--backend", "elasticsearch", "--es-url", urls, "--es-index", "cluster-eval",
        "--out", str(out),
    ]  # fmt: skip


def test_a_node_killed_mid_run_loses_no_question(cluster, shared_data, tmp_path, monkeypatch):
    urls, env = cluster
    corpus = tmp_path / "pooled.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": p.id, "title": p.title, "text": p.text}) + "\n"
            for p in pooled_corpus(shared_data)
        )
    )
    built = searchain(
        "index", str(corpus), "--backend", "elasticsearch", "--es-url", urls,
        "--es-index", "cluster-eval", "--shards", "3", "--replicas", "1", "--overwrite",
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    es = ElasticRetriever(ElasticSettings(url=urls, index="cluster-eval"))
    settings = es.client.indices.get_settings(index="cluster-eval")
    [index_settings] = [v["settings"]["index"] for v in settings.body.values()]
    assert (index_settings["number_of_shards"], index_settings["number_of_replicas"]) == ("3", "1")
    env_data = {**os.environ, "SEARCHAIN_DATA_DIR": str(shared_data)}
    calm = searchain(*eval_args(urls, tmp_path / "calm.jsonl"), env=env_data, cwd=tmp_path)
    assert calm.returncode == 0, calm.stderr

    # The same run in this process, node 2 SIGKILLed just before its 10th search.
    from typer.testing import CliRunner

    from searchain.cli.app import app

    searches = []
    original = ElasticRetriever._search

    def search(self, bodies):
        searches.append(len(bodies))
        if len(searches) == 10:
            node(env, "kill-node", 2)
        return original(self, bodies)

    monkeypatch.setattr(ElasticRetriever, "_search", search)
    monkeypatch.setenv("SEARCHAIN_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)
    try:
        stormy = CliRunner().invoke(app, eval_args(urls, tmp_path / "stormy.jsonl"))
        assert stormy.exit_code == 0, stormy.output
        assert len(searches) > 10  # the kill came mid-run, with searches after it
        calm_rows = {r["id"]: r for _, r in read_results(tmp_path / "calm.jsonl")}
        stormy_rows = {r["id"]: r for _, r in read_results(tmp_path / "stormy.jsonl")}
        assert len(calm_rows) == len(stormy_rows) == 20
        for qid, row in calm_rows.items():
            assert stormy_rows[qid]["prediction"] == row["prediction"], qid
            assert stormy_rows[qid]["sources"] == row["sources"], qid
    finally:
        node(env, "start-node", 2)  # back to green for what follows


def test_a_red_cluster_fails_the_question_in_one_line_and_the_thread_resumes(
    cluster, shared_data, tmp_path
):
    urls, env = cluster
    es = ElasticRetriever(ElasticSettings(url=urls, index="cluster-red"))
    es.build(pooled_corpus(shared_data), shards=3, replicas=0, overwrite=True)
    es.client.indices.put_settings(
        index="cluster-red", settings={"index.routing.allocation.total_shards_per_node": 1}
    )
    es.client.cluster.health(index="cluster-red", wait_for_status="green", timeout="120s")
    # The model reads too (write_script's reader): the cluster is what is tested.
    script = write_script(tmp_path / "script.json", **SCRIPT)
    db = str(tmp_path / "threads.sqlite")
    ask = [
        "ask", Q, "--backend", "elasticsearch", "--es-url", urls, "--es-index", "cluster-red",
        "--llm", f"scripted:{script}", "--reader", "llm", "--db", db,
        "--thread", "red", "--json",
    ]  # fmt: skip
    node(env, "kill-node", 1)  # each node holds one of the three shards, no copy: red
    try:
        failed = searchain(*ask, cwd=tmp_path)
        assert failed.returncode == 1, failed.stderr
        errors = [line for line in failed.stderr.splitlines() if line.startswith("error:")]
        assert errors == [failed.stderr.strip().splitlines()[-1]]  # one line, and the last
        assert "could not reach every shard of 'cluster-red'" in errors[0]
        assert "bring it back, then resume" in errors[0]
    finally:
        node(env, "start-node", 1)
    resumed = searchain("resume", "red", "--db", db, "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    answer = json.loads(resumed.stdout)
    assert "Giotto" in answer["answer"] and answer["references"]
