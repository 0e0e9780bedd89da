"""Embedded BM25 on the pooled shared corpus: build throughput, load time, query latency.

Run: .venv/bin/python benchmarks/embedded_bm25.py [--data ../shared/data] [--repeat 3]
Queries: MuSiQue's gold sub-questions (tuning split, earlier answers substituted) and the
HotpotQA tuning questions. Prints figures; asserts nothing.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from searchain.eval.datasets import data_dir, musique_hops, pooled_corpus, records
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.embedded.index import BM25Index


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = data_dir(args.data)
    corpus = pooled_corpus(root)
    queries = [h.question for h in musique_hops(root, "tune")]
    queries += [r["question"] for r in records(root, "hotpotqa", "tune")]
    with tempfile.TemporaryDirectory() as tmp:
        builds = []
        for i in range(args.repeat):
            started = time.perf_counter()
            embedded.build(corpus, Path(tmp) / f"index{i}")
            builds.append(time.perf_counter() - started)
        loads = []
        for i in range(args.repeat):
            started = time.perf_counter()
            index = BM25Index.load(Path(tmp) / f"index{i}")
            loads.append(time.perf_counter() - started)
        for q in queries[:20]:  # warm caches (stemmer, page cache)
            index.search(q)
        latencies = []
        for _ in range(args.repeat):
            for q in queries:
                started = time.perf_counter()
                index.search(q, k=1)
                latencies.append(time.perf_counter() - started)
    build = statistics.median(builds)
    print(f"corpus: {len(corpus):,} passages; {len(queries)} queries x {args.repeat}")
    print(f"index build: {build:.2f} s median = {len(corpus) / build:,.0f} passages/s")
    print(f"index load (mmap): {statistics.median(loads) * 1000:.1f} ms median")
    print(
        f"query latency top-1: p50 {percentile(latencies, 0.5) * 1000:.2f} ms, "
        f"p95 {percentile(latencies, 0.95) * 1000:.2f} ms, "
        f"{len(latencies) / sum(latencies):,.0f} queries/s (one thread)"
    )


if __name__ == "__main__":
    main()
