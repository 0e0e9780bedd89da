"""The embedded index and Elasticsearch at Wikipedia's scale: 1M, 10M, 21M passages.

Run (not in CI; hours, tens of GB of disk):
    .venv/bin/python benchmarks/scale_corpus.py --passages 21000000 --out /big/psgs_21m.tsv.zst
    ES_HEAP=auto scripts/elasticsearch.sh start     # the heap Elasticsearch sizes for itself
    .venv/bin/python benchmarks/scale.py --corpus /big/psgs_21m.tsv.zst --work /big/work \\
        --sizes 1000000 10000000 21000000 [--memory 4GiB] [--skip-es-above 10000000] [--keep]

Each size is the first N passages of the corpus file (read through ``read_corpus``: the DPR TSV
reader, zstd), so sizes share their real passages and their queries' answers. Both backends use
k1=1.2, b=0.75 and the same word boundaries (embedded tokenizer ``standard``, Elasticsearch
analyzer ``standard``). The embedded index is built in one child process (its peak RSS is the
build's) and queried in another (``RssAnon``/``RssFile`` of /proc/self/status after the
queries: private memory, and pages of the mapped index the kernel may drop). Elasticsearch's
figures are its server's (one node; ``VmHWM``). Queries: MuSiQue gold sub-questions and
HotpotQA questions of the tuning split (300), one client thread one query at a time (q/s, p50,
p95), then all 300 as one batch (``search_batch``; Elasticsearch ``_msearch``). Each index is
deleted once measured, to leave the disk for the next, unless ``--keep``: then a later run with
``--keep`` measures the kept indexes again without building them (both backends' queries in one
run, e.g. on a quieter machine). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BUILD = """
import json, resource, sys, time
from searchain.tools.retrieval.embedded.index import BM25Index
from searchain.tools.retrieval.corpus.readers import read_corpus
corpus, size, out, memory = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
started = time.perf_counter()
last = [started]
def progress(done):
    if time.perf_counter() - last[0] > 60:
        last[0] = time.perf_counter()
        rate = done / (last[0] - started)
        print(f"  {done:,} passages, {rate:,.0f}/s", file=sys.stderr, flush=True)
passages = read_corpus(corpus, limit=size)
build(passages, out, Options(k1=1.2, tokenizer="standard", memory=memory), progress=progress)
print(json.dumps({"seconds": time.perf_counter() - started,
                  "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""

QUERY = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from scale import measure
from searchain.tools.retrieval.embedded.index import BM25Index
queries = json.loads(open(sys.argv[2]).read())
started = time.perf_counter()
index = BM25Index.load(sys.argv[1])
opened = time.perf_counter()
index.search(queries[0])
first = time.perf_counter() - opened
figures = measure(index, queries)
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
memory = {k: int(status[k].split()[0]) / 2**20 for k in ("RssAnon", "RssFile")}
figures.update(open_s=opened - started, first_search_s=first, **memory)
print(json.dumps(figures))
"""


def measure(retriever, queries: list[str]) -> dict:
    """q/s, p50, p95 one query at a time, cold (the first pass: mapped pages read from disk or
    page cache) and warm (a second pass); batch q/s (best of 3); every query's top-1 id."""
    started = time.perf_counter()
    for q in queries:
        retriever.search(q)
    cold = len(queries) / (time.perf_counter() - started)
    latencies, top = [], []
    for q in queries:
        started = time.perf_counter()
        hits = retriever.search(q)
        latencies.append(time.perf_counter() - started)
        top.append(hits[0].id if hits else None)
    latencies.sort()
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        retriever.search_batch(queries)
        best = min(best, time.perf_counter() - started)
    return {
        "cold_qps": cold,
        "qps": len(queries) / sum(latencies),
        "p50_ms": latencies[len(latencies) // 2] * 1000,
        "p95_ms": latencies[int(len(latencies) * 0.95)] * 1000,
        "batch_qps": len(queries) / best,
        "top": top,
    }


def child(code: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def du_gib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.resolve().rglob("*") if f.is_file()) / 2**30


def es_state() -> Path:
    """The state folder of scripts/elasticsearch.sh's node (this checkout's own, or ES_STATE)."""
    root = Path(__file__).resolve().parent.parent
    script = root / "scripts" / "elasticsearch.sh"
    return Path(subprocess.check_output([str(script), "state"], text=True).strip())


def es_server_status() -> dict[str, float]:
    pid_file = es_state() / "node-1" / "pid"
    status = Path(f"/proc/{pid_file.read_text().strip()}/status").read_text()
    values = dict(line.split(":", 1) for line in status.splitlines())
    return {k: int(values[k].split()[0]) / 2**20 for k in ("VmHWM", "RssAnon", "RssFile")}


def write_queries(data: str | None, work: Path) -> list[str]:
    """The benchmark's queries (MuSiQue gold sub-questions and HotpotQA questions of the tuning
    split), also written to ``work/queries.json`` for the child processes."""
    from searchain.eval.datasets import data_dir, musique_hops, records

    root = data_dir(data)
    queries = [h.question for h in musique_hops(root, "tune")]
    queries += [r["question"] for r in records(root, "hotpotqa", "tune")]
    work.mkdir(parents=True, exist_ok=True)
    (work / "queries.json").write_text(json.dumps(queries))
    return queries


def main() -> None:
    from searchain.tools.retrieval.embedded.postings.segments import default_memory, parse_size

    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--memory", default="")
    parser.add_argument("--data", default=None)
    parser.add_argument("--es-url", default=os.environ.get("ES_URL", ""))
    parser.add_argument("--skip-es-above", type=int, default=sys.maxsize)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep each embedded index; a later run with --keep queries it again, unbuilt",
    )
    args = parser.parse_args()
    queries = write_queries(args.data, args.work)
    query_file = args.work / "queries.json"
    memory = parse_size(args.memory) if args.memory else default_memory()
    print(f"{len(queries)} queries; build memory budget {memory / 2**30:.1f} GiB", flush=True)
    for size in args.sizes:
        out = args.work / f"embedded-{size}"
        if args.keep and out.exists():
            built_line = "build kept from an earlier run"
        else:
            built = child(BUILD, str(args.corpus), str(size), str(out), str(memory))
            built_line = (
                f"build {built['seconds'] / 60:.1f} min ({size / built['seconds']:,.0f} "
                f"passages/s), build peak RSS {built['rss_gib']:.2f} GiB"
            )
        disk = du_gib(out)
        emb = child(QUERY, str(out), str(query_file), str(HERE))
        print(
            f"[{size:,}] embedded: {built_line}, disk {disk:.1f} GiB; "
            f"open {emb['open_s'] * 1000:.0f} ms, "
            f"first search {emb['first_search_s'] * 1000:.0f} ms; "
            f"{emb['cold_qps']:,.0f} q/s cold, {emb['qps']:,.0f} q/s warm, "
            f"p50 {emb['p50_ms']:.2f} ms, p95 {emb['p95_ms']:.2f} ms, "
            f"batch {emb['batch_qps']:,.0f} q/s; after the queries RssAnon "
            f"{emb['RssAnon']:.2f} GiB, RssFile {emb['RssFile']:.2f} GiB",
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(out.resolve())
            out.unlink()
        if size > args.skip_es_above:
            continue
        es_figures(args, size, queries, emb)


def es_figures(args: argparse.Namespace, size: int, queries: list[str], emb: dict) -> None:

    from searchain.tools.retrieval.corpus.readers import read_corpus
    from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

    url = (
        args.es_url
        or subprocess.check_output(
            [str(HERE.parent / "scripts" / "elasticsearch.sh"), "url"], text=True
        ).strip()
    )
    es = ElasticRetriever(ElasticSettings(url=url, index="scale", timeout=600))
    if args.keep and es.client.indices.exists_alias(name="scale") and es.count() == size:
        built_line = "build kept from an earlier run"
    else:
        started = time.perf_counter()
        passages = read_corpus(args.corpus, limit=size)
        es.build(passages, overwrite=True, chunk_size=2000)
        seconds = time.perf_counter() - started
        es.client.options(request_timeout=7200).indices.forcemerge(
            index="scale", max_num_segments=1
        )
        built_line = f"build {seconds / 60:.1f} min ({size / seconds:,.0f} passages/s)"
    stats = es.client.indices.stats(index="scale", metric="store")
    disk = stats["_all"]["primaries"]["store"]["size_in_bytes"] / 2**30
    es.search(queries[0])
    figures = measure(es, queries)
    server = es_server_status()
    agree = sum(a == b for a, b in zip(emb["top"], figures["top"], strict=True)) / len(queries)
    print(
        f"[{size:,}] elasticsearch: {built_line}, server peak RSS {server['VmHWM']:.2f} GiB, "
        f"disk {disk:.1f} GiB "
        f"(force-merged); {figures['cold_qps']:,.0f} q/s cold, {figures['qps']:,.0f} q/s "
        f"warm, p50 {figures['p50_ms']:.2f} ms, p95 "
        f"{figures['p95_ms']:.2f} ms, batch {figures['batch_qps']:,.0f} q/s; server RssAnon "
        f"{server['RssAnon']:.2f} GiB, RssFile {server['RssFile']:.2f} GiB\n"
        f"[{size:,}] embedded/elasticsearch: {emb['qps'] / figures['qps']:.1f}x one at a time, "
        f"{emb['batch_qps'] / figures['batch_qps']:.1f}x batched; top-1 agreement {agree:.3f}",
        flush=True,
    )
    if not args.keep:
        es.client.options(ignore_status=404).indices.delete(index="scale-*")


if __name__ == "__main__":
    main()
