"""Updating a documents index on Elasticsearch: the cost of an update against a build, and after.

Run: .venv/bin/python benchmarks/elastic_updates.py --es-url http://127.0.0.1:9200
     [--files 10000] [--sections 10] [--updates 5] [--fraction 0.01] [--data ../shared/data]
     [--work /tmp/elastic-updates]

The documents are ``benchmarks/updates.py``'s (Markdown files of sampled words, one passage a
section). In one run: a full build into the index ``bench-updates`` (``searchain index FOLDER
--backend elasticsearch``'s work); ``--updates`` updates, each after changing ``--fraction`` of
the files (80% edited, 10% deleted, 10% added), timed one by one (an update copies every kept
passage into a new physical index: see ``searchain/tools/retrieval/elastic/update.py``); a fresh
build of the final files into ``bench-updates-fresh``; and whether the two indexes' top 10s
(ids and scores) are identical for the benchmark's queries. Both indexes are deleted at the end.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import write_queries  # benchmarks/scale.py, beside this script
from updates import Writer, change, documents_arguments, write_files  # benchmarks/updates.py

from searchain.documents.collection import Documents
from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings
from searchain.tools.retrieval.elastic.update import update_elastic


def build(url: str, name: str, root: Path) -> tuple[ElasticRetriever, float]:
    es = ElasticRetriever(ElasticSettings(url=url, index=name))
    started = time.perf_counter()
    es.build(Documents([root]), overwrite=True)
    return es, time.perf_counter() - started


def top10(es: ElasticRetriever, query: str) -> tuple[list[float], list[tuple[float, str]]]:
    """The top 10's scores, and its ids by score (ties by id) above the 10th's score.

    Elasticsearch orders equal scores by its internal ids, which a parallel bulk load does not
    fix (two builds of the same files differ there), and the 10th's ties may be cut anywhere.
    """
    hits = [(p.score, p.id) for p in es.search(query, 10)]
    last = hits[-1][0] if hits else 0.0
    return [s for s, _ in hits], sorted(h for h in hits if h[0] != last)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--es-url", required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/elastic-updates"))
    documents_arguments(parser, files=10_000, updates=5)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    root = args.work / "docs"
    writer = Writer(args.data, args.sections)
    write_files(root, writer, args.files)
    es, full = build(args.es_url, "bench-updates", root)
    print(f"full build: {es.count():,} passages in {full:.1f} s", flush=True)
    live, next_new, times = list(range(args.files)), args.files, []
    for n in range(args.updates):
        next_new = change(root, writer, live, args.fraction, next_new)
        started = time.perf_counter()
        _, _, changes = update_elastic(es, Documents.again)
        times.append(time.perf_counter() - started)
        print(f"update {n + 1}: {changes} in {times[-1]:.1f} s", flush=True)
    fresh, rebuild = build(args.es_url, "bench-updates-fresh", root)
    queries = write_queries(args.data, args.work)
    same = sum(top10(es, q) == top10(fresh, q) for q in queries)
    median = statistics.median(times)
    print(f"fresh build of the final files: {rebuild:.1f} s")
    print(
        f"update after {args.fraction:.0%} changed: median {median:.1f} s = "
        f"{median / full:.0%} of the full build ({full:.1f} s); slowest {max(times):.1f} s"
    )
    print(
        f"top 10 identical to the fresh build's (scores, and ids up to ties): {same} of "
        f"{len(queries)}"
    )
    for name in ("bench-updates", "bench-updates-fresh"):
        for physical in es.alias_targets(name):
            es.client.indices.delete(index=physical)


if __name__ == "__main__":
    main()
