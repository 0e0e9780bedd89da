"""BM25 engines side by side: searchain's embedded index, tantivy, PISA and bm25s, one at a time.

Run (tantivy and PISA come from the ``bench`` extra; bm25s is a core dependency):
    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/scale_corpus.py --passages 1000000 --out /big/c1m.tsv
    .venv/bin/python benchmarks/engines.py --corpus /big/c1m.tsv --work /big/engines \\
        --size 1000000 [--engines searchain tantivy pisa bm25s] [--keep]

Every engine indexes the first ``--size`` passages of the corpus (title and text as one field)
and answers the same queries — the MuSiQue gold sub-questions and HotpotQA questions of the
shared data's tuning split, as ``benchmarks/scale.py`` makes them — with BM25 k1 = 1.2,
b = 0.75, returning each query's top 10 passage ids. One engine runs at a time, each step in a
fresh child process:

* build: wall time; peak RSS of the whole process tree (sampled every 20 ms, and at least the
  child's own ``ru_maxrss``), so searchain's worker processes and PISA's threads count;
* disk, like for like: the index without stored passages, and the stored passages apart —
  searchain's passage store (``passages.*``: ids, titles, texts, compressed), tantivy's doc
  store (``*.store``: the ids only as ``tantivy`` is built, ids and text as ``tantivy-text``);
  PISA and bm25s store no text (their id tables count as index). "Bytes a posting" divides each
  index by searchain's posting count (one tokeniser's count for all: the others' own differ),
  "store / raw text" each text store by the passages' UTF-8 ids, titles and texts;
* open: a new process imports the engine's module, then opens the index (time to a
  searcher), then runs one search (first search: what loads lazily); then every query one at a
  time from one thread, twice — the second pass gives q/s and p50/p95 — and reads its private
  memory (``RssAnon``) after them. searchain searches a long query in a thread a core, so its
  index is queried a second time by a process held to one core (``searchain-one-core``: the
  same answers required), the row to set beside PISA's and tantivy's single-threaded searches;
* quality: each engine's top 10 against exhaustive BM25 (every posting of every query term
  summed over searchain's score matrix, standard tokenizer, Lucene IDF): top-10 overlap is the
  share of its 10 whose exhaustive score reaches the 10th best (so ties count either way), top-1
  agreement the share of queries whose first hit has the best exhaustive score.

What makes the comparison unequal (printed under the table): tokenisers differ (searchain's
``standard`` keeps ``u.s`` and ``1,000`` whole, tantivy's ``default`` splits on anything not
alphanumeric and drops tokens over 40 bytes, PISA's splits like tantivy's, bm25s's keeps words of
two or more word characters); PISA's IDF is ``log((N - df + 0.5) / (df + 0.5))`` floored near 0
(common terms weigh nothing) where the others use Lucene's ``log(1 + ...)``; tantivy stores
document lengths in one byte (lengths are approximate) and its Python collector returns
addresses whose ids are read from the stored field; searchain reads each hit's whole passage
from its passage store. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from searchain.tools.retrieval import embedded

HERE = Path(__file__).resolve()
K1, B, K = 1.2, 0.75, 10
ENGINES = ("searchain", "tantivy", "tantivy-text", "pisa", "bm25s")
SETTINGS = {
    "searchain": "embedded index, tokenizer standard, MaxScore top-k, workers: cores - 1; "
    "a query searched in a thread for each 100,000 postings of its lists, up to one a core",
    "searchain-one-core": "searchain's index, queried by a process held to one core (one thread)",
    "tantivy": "tantivy-py, tokenizer default, writer threads auto, TopDocs collector, ids stored",
    "tantivy-text": "as tantivy, with the passage text stored too (its doc store, zstd)",
    "pisa": "pyterrier-pisa, no stemmer, no stop words, block_simdbp, block-max WAND, no pandas",
    "bm25s": "bm25s, method lucene, its tokenizer (no stop words, no stemmer), numpy backend",
}


def passages(corpus: str, size: int) -> Iterator[tuple[str, str]]:
    """``(id, title + text)`` of the first ``size`` passages."""
    from searchain.tools.retrieval.corpus.readers import read_corpus

    for p in read_corpus(corpus, limit=size):
        yield p.id, f"{p.title} {p.text}"


# Each engine: build(corpus, size, out) in one child, open(out) -> search(query) -> ids in another.


def build_searchain(corpus: str, size: int, out: Path) -> None:
    from searchain.tools.retrieval.corpus.readers import read_corpus

    corpus_passages = read_corpus(corpus, limit=size)
    embedded.build(corpus_passages, out, embedded.Options(k1=K1, b=B, tokenizer="standard"))


def open_searchain(out: Path) -> Callable[[str], list[str]]:
    from searchain.tools.retrieval.embedded.index import BM25Index

    index = BM25Index.load(out)
    return lambda query: [p.id for p in index.search(query, K)]


def open_searchain_one_core(out: Path) -> Callable[[str], list[str]]:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # a long query's threads: one
    return open_searchain(out)


def build_tantivy(corpus: str, size: int, out: Path, *, text: bool = False) -> None:
    import tantivy

    schema = tantivy.SchemaBuilder()
    schema.add_text_field("id", stored=True, tokenizer_name="raw")
    schema.add_text_field("body", stored=text, tokenizer_name="default")
    out.mkdir(parents=True)
    index = tantivy.Index(schema.build(), path=str(out))
    writer = index.writer(heap_size=1 << 30, num_threads=0)
    for pid, body in passages(corpus, size):
        writer.add_document(tantivy.Document(id=pid, body=body))
    writer.commit()
    writer.wait_merging_threads()


def open_tantivy(out: Path) -> Callable[[str], list[str]]:
    import tantivy

    index = tantivy.Index.open(str(out))
    searcher = index.searcher()
    words = re.compile(r"\W+")

    def search(query: str) -> list[str]:
        # Plain lower-case words: no query-language operators (AND, -, :) by accident.
        parsed, _ = index.parse_query_lenient(words.sub(" ", query.lower()), ["body"])
        hits = searcher.search(parsed, K).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return search


def build_tantivy_text(corpus: str, size: int, out: Path) -> None:
    build_tantivy(corpus, size, out, text=True)


def open_tantivy_text(out: Path) -> Callable[[str], list[str]]:
    return open_tantivy(out)


def build_pisa(corpus: str, size: int, out: Path) -> None:
    from pyterrier_pisa import PisaIndex

    index = PisaIndex(str(out), stemmer="none", stops="none", threads=len(os.sched_getaffinity(0)))
    index.index({"docno": pid, "text": body} for pid, body in passages(corpus, size))


def open_pisa(out: Path) -> Callable[[str], list[str]]:
    import numpy as np
    from pyterrier_pisa import PisaIndex, _pisathon

    retriever = PisaIndex(str(out), stops="none", threads=1).bm25(k1=K1, b=B, num_results=K)
    algorithm = retriever.query_algorithm.value
    qidx, ranks = np.empty(K, np.int32), np.empty(K, np.int32)
    docnos, scores = np.empty(K, dtype=object), np.empty(K, np.float32)

    def search(query: str) -> list[str]:
        # The retriever's own call, without the DataFrames PyTerrier wraps around it.
        size = _pisathon.retrieve(
            retriever._ctxt,
            algorithm,
            [(0, query)],
            k=K,
            threads=1,
            query_weighted=0,
            pretokenised=False,
            result_qidxs=qidx,
            result_docnos=docnos,
            result_ranks=ranks,
            result_scores=scores,
        )
        order = np.argsort(ranks[:size], kind="stable")
        return [str(d) for d in docnos[:size][order]]

    return search


def build_bm25s(corpus: str, size: int, out: Path) -> None:
    import bm25s

    ids, texts = zip(*passages(corpus, size), strict=True)
    tokens = bm25s.tokenize(list(texts), stopwords=None, show_progress=False)
    del texts
    retriever = bm25s.BM25(k1=K1, b=B, method="lucene", idf_method="lucene")
    retriever.index(tokens, show_progress=False)
    retriever.save(str(out))
    (out / "ids.json").write_text(json.dumps(ids))


def open_bm25s(out: Path) -> Callable[[str], list[str]]:
    import bm25s

    retriever = bm25s.BM25.load(str(out), mmap=False)
    ids = json.loads((out / "ids.json").read_text())
    vocab = retriever.vocab_dict

    def search(query: str) -> list[str]:
        words = bm25s.tokenize(query, stopwords=None, return_ids=False, show_progress=False)
        known = [[w for w in words[0] if w in vocab]]
        if not known[0]:
            return []
        docs, _ = retriever.retrieve(known, k=K, n_threads=1, show_progress=False)
        return [ids[d] for d in docs[0]]

    return search


def child_build(engine: str, corpus: str, size: int, out: Path) -> dict:
    started = time.perf_counter()
    globals()[f"build_{engine.replace('-', '_')}"](corpus, size, out)
    return {
        "seconds": time.perf_counter() - started,
        "own_peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


MODULES = {
    "searchain": "searchain.tools.retrieval.embedded.index",
    "searchain-one-core": "searchain.tools.retrieval.embedded.index",
    "tantivy": "tantivy",
    "tantivy-text": "tantivy",
    "pisa": "pyterrier_pisa",
    "bm25s": "bm25s",
}
"""Imported before open is timed: open is the index's cost, not the library's import."""


def child_query(engine: str, out: Path, queries: list[str]) -> dict:
    importlib.import_module(MODULES[engine])
    started = time.perf_counter()
    search = globals()[f"open_{engine.replace('-', '_')}"](out)
    opened = time.perf_counter()
    search(queries[0])
    first = time.perf_counter() - opened
    for query in queries:  # cold: pages read from disk or the page cache
        search(query)
    latencies, tops = [], []
    for query in queries:
        at = time.perf_counter()
        tops.append(search(query))
        latencies.append(time.perf_counter() - at)
    latencies.sort()
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return {
        "rss_anon_gib": int(status["RssAnon"].split()[0]) / 2**20,
        "rss_file_gib": int(status["RssFile"].split()[0]) / 2**20,
        "open_s": opened - started,
        "first_search_s": first,
        "qps": len(queries) / sum(latencies),
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p95_ms": 1000 * latencies[int(len(latencies) * 0.95)],
        "tops": tops,
    }


def tree_rss(pid: int) -> int:
    """Bytes resident in ``pid`` and all its descendants now."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
        rss = next((line for line in status.splitlines() if line.startswith("VmRSS:")), None)
        total += int(rss.split()[1]) * 1024 if rss else 0
    return total


def run_child(*args: str) -> tuple[dict, float]:
    """Run this script as a child with ``args``: its JSON answer and its tree's peak RSS (GiB)."""
    log = Path(os.environ.get("ENGINES_LOG", "/tmp/engines.log"))
    with (
        log.open("a") as errors,
        subprocess.Popen(
            [sys.executable, str(HERE), "--child", *args],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        ) as child,
    ):
        peak = 0
        while child.poll() is None:
            peak = max(peak, tree_rss(child.pid))
            time.sleep(0.02)
        output = child.stdout.read() if child.stdout else ""
    if child.returncode:
        raise SystemExit(f"{args[:2]} failed ({child.returncode}): see {log}")
    answer = json.loads(output.strip().splitlines()[-1])
    return answer, max(peak / 2**30, answer.get("own_peak_gib", 0.0))


def exhaustive(index_dir: Path, queries: list[str]) -> list[tuple[set[str], set[str]]]:
    """For each query: ids whose exhaustive score reaches the 10th best, and the best ones."""
    import numpy as np

    from searchain.tools.retrieval.embedded.index import BM25Index

    index = BM25Index.load(index_dir)
    scores = np.zeros(len(index), np.float32)
    answers = []
    for query in queries:
        scores[:] = 0
        for term in set(index.terms(query)):
            docs, weights = index.postings.scores(term)  # every posting, decoded in NumPy
            scores[docs] += weights
        top = np.argpartition(-scores, K)[:K]
        tenth, best = scores[top].min(), scores[top].max()
        reach = np.flatnonzero((scores >= tenth) & (scores > 0))
        answers.append(
            (
                {index.passage(int(d)).id for d in reach[:10_000]},
                {index.passage(int(d)).id for d in np.flatnonzero(scores == best)[:1000]},
            )
        )
    return answers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--data", default=None)
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) built indexes")
    args = parser.parse_args()
    from scale import du_gib, write_queries  # benchmarks/scale.py, beside this script

    from searchain.tools.retrieval.embedded.index import BM25Index

    queries = write_queries(args.data, args.work)
    query_file = args.work / "queries.json"
    text_bytes = raw_text_bytes(args.corpus, args.size, args.work)
    postings = 0
    engines = ["searchain", *[e for e in args.engines if e != "searchain"]]  # the reference
    print(f"{args.size:,} passages, {len(queries)} queries, k1={K1} b={B}, top {K}", flush=True)
    rows, reference = [], None
    for engine in engines:
        out = args.work / f"{engine}-{args.size}"
        built: dict = {}
        if not (args.keep and out.exists()):
            remove(out)
            built, peak = run_child("build", engine, args.corpus, str(args.size), str(out))
            built["peak_gib"] = peak
        disk = du_gib(out)
        store = store_gib(engine, out)
        answered, _ = run_child("query", engine, str(out), str(query_file))
        if reference is None:
            reference = exhaustive(out, queries)
            postings = int(BM25Index.load(out).postings.indptr[-1])
        tops = answered["tops"]
        overlap = sum(
            len(set(t) & reach) / K for t, (reach, _) in zip(tops, reference, strict=True)
        )
        agree = sum(bool(t) and t[0] in best for t, (_, best) in zip(tops, reference, strict=True))
        row = {"engine": engine, "disk_gib": disk, "store_gib": store, **built, **answered}
        row.update(postings=postings, text_bytes=text_bytes)
        row.update(overlap=overlap / len(queries), top1=agree / len(queries))
        row.pop("tops")
        rows.append(row)
        print(json.dumps(row), flush=True)
        if engine == "searchain":  # the same index, queried on one core: like for like
            alone, _ = run_child("query", "searchain-one-core", str(out), str(query_file))
            if alone.pop("tops") != tops:
                raise SystemExit("searchain on one core answered differently")
            shared = {k: v for k, v in row.items() if k not in ("seconds", "peak_gib")}
            rows.append({**shared, **alone, "engine": "searchain-one-core"})
            print(json.dumps(rows[-1]), flush=True)
        if engine != "searchain" and not args.keep:
            remove(out)
    table(rows)
    if not args.keep:
        remove(args.work / f"searchain-{args.size}")


STORES = {"searchain": "passages.*", "tantivy": "*.store", "tantivy-text": "*.store"}
"""Each engine's stored passages (searchain: text; tantivy: ids, or ids and text), by name."""
TEXT = ("searchain", "tantivy-text")
"""The engines whose store holds the passages' text."""


def store_gib(engine: str, out: Path) -> float | None:
    """The bytes of the engine's stored fields (None: it stores none; PISA, bm25s keep ids)."""
    if engine not in STORES:
        return None
    return sum(f.stat().st_size for f in out.resolve().rglob(STORES[engine])) / 2**30


def raw_text_bytes(corpus: str, size: int, work: Path) -> int:
    """UTF-8 bytes of the passages' ids, titles and texts: what a passage store holds."""
    cache = work / f"text-bytes-{size}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    from searchain.tools.retrieval.corpus.readers import read_corpus

    total = sum(
        len(p.id.encode()) + len(p.title.encode()) + len(p.text.encode())
        for p in read_corpus(corpus, limit=size)
    )
    cache.write_text(json.dumps(total))
    return total


def remove(path: Path) -> None:
    """Delete an index directory, or the versioned one a link (searchain's ``--index``) names."""
    if path.is_symlink():
        shutil.rmtree(path.resolve(), ignore_errors=True)
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def table(rows: list[dict]) -> None:
    print(
        "\n| engine | build s | build peak RSS | index (no text) | bytes a posting | stored "
        "passages | store / raw text | open | first search | q/s "
        "| p50 / p95 ms | RssAnon after | top-10 overlap | top-1 agreement |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    for r in rows:
        built = f"{r['seconds']:.1f} | {r['peak_gib']:.2f} GiB" if "seconds" in r else "kept | –"
        built = "searchain's | –" if r["engine"] == "searchain-one-core" else built
        store = r["store_gib"]
        index = r["disk_gib"] - (store or 0.0)
        per = index * 2**30 / r["postings"]
        held = "–" if store is None else f"{store:.2f} GiB"
        ratio = f"{store * 2**30 / r['text_bytes']:.3f}" if r["engine"] in TEXT else "–"
        print(
            f"| {r['engine']} | {built} | {index:.2f} GiB | {per:.2f} | {held} | {ratio} | "
            f"{1000 * r['open_s']:.0f} ms | {1000 * r['first_search_s']:.0f} ms | "
            f"{r['qps']:,.0f} | {r['p50_ms']:.2f} / {r['p95_ms']:.2f} | "
            f"{1024 * r['rss_anon_gib']:.0f} MiB | {r['overlap']:.3f} | "
            f"{r['top1']:.3f} |"
        )
    print()
    first = rows[0]
    print(
        f"bytes a posting: each index without its stored passages over searchain's "
        f"{first['postings']:,} postings (tokenisers differ: an engine's own count differs); "
        f"raw text: {first['text_bytes'] / 2**30:.2f} GiB of ids, titles and texts"
    )
    for r in rows:
        print(f"- {r['engine']}: {SETTINGS[r['engine']]}")
    base = next((r for r in rows if r["engine"] == "searchain"), None)
    one = next((r for r in rows if r["engine"] == "searchain-one-core"), None)
    for r in rows:
        if base and r is not base and r is not one:
            ratio = f"searchain/{r['engine']}: q/s {base['qps'] / r['qps']:.2f}x"
            if one:
                ratio += f" (on one core {one['qps'] / r['qps']:.2f}x)"
            if "seconds" in r and "seconds" in base:
                ratio += f", build time {base['seconds'] / r['seconds']:.2f}x"
            print(ratio)
    if base and one:
        print(f"searchain on every core / on one core: q/s {base['qps'] / one['qps']:.2f}x")


def child_main(argv: list[str]) -> None:
    if argv[0] == "build":
        engine, corpus, size, out = argv[1:]
        answer = child_build(engine, corpus, int(size), Path(out))
    else:
        engine, out, query_file = argv[1:]
        answer = child_query(engine, Path(out), json.loads(Path(query_file).read_text()))
    print(json.dumps(answer))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
    else:
        main()
