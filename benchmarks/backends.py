"""Embedded BM25 vs Elasticsearch: build throughput, peak memory, queries/s, latency, agreement.

Run:
    scripts/elasticsearch.sh start            # or point ES_URL at a server
    .venv/bin/python benchmarks/backends.py --sizes 6404 100000 1000000 [--es-url URL]

Corpora: the pooled shared corpus (6,404 real passages); larger sizes add SYNTHETIC filler
passages (random words drawn with the real corpus's word frequencies), so every query's real
answer passages are still in the collection. Queries: MuSiQue gold sub-questions and HotpotQA
questions of the tuning split (300). Both backends use k1=1.2, b=0.75 and the same word
boundaries (embedded tokenizer `standard`, Elasticsearch analyzer `standard`). One client thread,
one query at a time (q/s, p50, p95); then the batch APIs (`search_batch`: the embedded index
scores a batch on every core, Elasticsearch answers one `_msearch`), all 300 queries per call.
Embedded peak memory is the builder process's max RSS; Elasticsearch's is the server JVM's
(heap fixed by ES_HEAP, 512 MB by default). Prints figures; asserts nothing.
"""

import argparse
import collections
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from searchain.eval.datasets import data_dir, musique_hops, pooled_corpus, records
from searchain.tools.retrieval.embedded.index import BM25Index, Tokenizer
from searchain.types import Passage


def corpus_of(size: int, real: list[Passage]) -> list[Passage]:
    if size <= len(real):
        return real[:size]
    rng = random.Random(13)
    counts = collections.Counter(w for p in real for w in Tokenizer("standard")(p.text))
    words, weights = zip(*counts.items(), strict=True)
    cumulative = list(itertools.accumulate(weights))  # once, not per passage
    filler = []
    for i in range(size - len(real)):
        body = rng.choices(words, cum_weights=cumulative, k=rng.randint(40, 90))
        filler.append(Passage(f"synthetic-{i}", " ".join(body[:3]).title(), " ".join(body)))
    return real + filler


def timed_queries(search, queries):
    latencies = []
    for q in queries:
        started = time.perf_counter()
        search(q)
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    return (
        len(latencies) / sum(latencies),
        latencies[len(latencies) // 2],
        latencies[int(len(latencies) * 0.95)],
    )


def batch_qps(search_batch, queries, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        search_batch(queries)
        best = min(best, time.perf_counter() - started)
    return len(queries) / best


def build_embedded_in_child(size: int, data: str, out: str) -> dict:
    """Build in a fresh process so its max RSS is the build's own peak memory."""
    code = (
        "import json,resource,sys,time;"
        "sys.path.insert(0,'benchmarks');"
        "from backends import corpus_of;"
        "from searchain.eval.datasets import data_dir,pooled_corpus;"
        "from searchain.tools.retrieval.embedded import Options,build;"
        f"c=corpus_of({size},pooled_corpus(data_dir({data!r})));"
        "t=time.perf_counter();"
        f"build(c,{out!r},Options(k1=1.2,tokenizer='standard'));"
        "s=time.perf_counter()-t;"
        "print(json.dumps({'seconds':s,'rss_gib':resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/2**20}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def es_state() -> Path:
    """The state folder of scripts/elasticsearch.sh's node (this checkout's own, or ES_STATE)."""
    root = Path(__file__).resolve().parent.parent
    script = root / "scripts" / "elasticsearch.sh"
    return Path(subprocess.check_output([str(script), "state"], text=True).strip())


def es_peak_rss_gib() -> float | None:
    pid_file = es_state() / "node-1" / "pid"
    try:
        status = Path(f"/proc/{pid_file.read_text().strip()}/status").read_text()
    except OSError:
        return None
    kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
    return kb / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6404, 100_000])
    parser.add_argument("--es-url", default=os.environ.get("ES_URL", ""))
    parser.add_argument("--skip-es", action="store_true")
    args = parser.parse_args()
    root = data_dir(args.data)
    real = pooled_corpus(root)
    queries = [h.question for h in musique_hops(root, "tune")]
    queries += [r["question"] for r in records(root, "hotpotqa", "tune")]
    es = None
    if not args.skip_es:
        from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

        url = (
            args.es_url
            or subprocess.check_output(["scripts/elasticsearch.sh", "url"], text=True).strip()
        )
        es = ElasticRetriever(ElasticSettings(url=url, index="bench", timeout=120))
    print(
        f"{len(queries)} queries, one client thread; sizes above {len(real):,} are padded "
        "with synthetic filler passages"
    )
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            built = build_embedded_in_child(size, str(root), f"{tmp}/index")
            index = BM25Index.load(f"{tmp}/index")
            index.search(queries[0])
            qps, p50, p95 = timed_queries(lambda q, index=index: index.search(q), queries)
            emb_top = [(index.search(q) or [None])[0] for q in queries]
            emb_batch = batch_qps(index.search_batch, queries)
            print(
                f"[{size:,}] embedded: build {size / built['seconds']:,.0f} passages/s "
                f"({built['seconds']:.1f} s), peak RSS {built['rss_gib']:.2f} GiB; "
                f"{qps:,.0f} q/s, p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms; "
                f"batch {emb_batch:,.0f} q/s"
            )
            if es is None:
                continue
            corpus = corpus_of(size, real)
            started = time.perf_counter()
            es.build(corpus, overwrite=True)
            seconds = time.perf_counter() - started
            es.search(queries[0])
            es_qps, es_p50, es_p95 = timed_queries(lambda q: es.search(q), queries)
            es_top = [(es.search(q) or [None])[0] for q in queries]
            es_batch = batch_qps(es.search_batch, queries)
            agree = sum(
                (a.id if a else None) == (b.id if b else None)
                for a, b in zip(emb_top, es_top, strict=True)
            ) / len(queries)
            rss = es_peak_rss_gib()
            print(
                f"[{size:,}] elasticsearch: build {size / seconds:,.0f} passages/s "
                f"({seconds:.1f} s), server peak RSS "
                f"{'n/a' if rss is None else f'{rss:.2f} GiB'}; {es_qps:,.0f} q/s, "
                f"p50 {es_p50 * 1000:.2f} ms, p95 {es_p95 * 1000:.2f} ms; "
                f"batch (_msearch) {es_batch:,.0f} q/s"
            )
            print(
                f"[{size:,}] embedded/elasticsearch q/s ratio {qps / es_qps:.1f}x one at a time, "
                f"{emb_batch / es_batch:.1f}x batched; top-1 agreement {agree:.3f}"
            )
        sys.stdout.flush()
    if es is not None:
        es.client.options(ignore_status=404).indices.delete(index="bench-*")


if __name__ == "__main__":
    main()
