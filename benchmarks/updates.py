"""Updating a documents index without a rebuild, at 1M passages: cost, speed after, answers after.

Run: .venv/bin/python benchmarks/updates.py --work /tmp/updates [--files 100000] [--sections 10]
     [--updates 20] [--fraction 0.01] [--data ../shared/data]

The documents (deterministic, seed 7): ``--files`` Markdown files in folders of 1,000, each a
heading and ``--sections`` sections of 97 words and a 2-word heading (one passage each: 100,000
files make 1M passages), the words
drawn from the shared corpus's unigram distribution. Then, in one run:

1. a full build (``searchain index FOLDER``'s work: walk, read, split, tokenise, write);
2. ``--updates`` updates, each after changing ``--fraction`` of the files (of those, 80% edited,
   10% deleted, 10% new files added), timed one by one;
3. a fresh build of the final files;
4. single-query throughput (top 10, one query at a time, the benchmark's queries: MuSiQue gold
   sub-questions and HotpotQA questions) on the updated index and on the fresh one, in
   alternating rounds, and whether their top 10s (ids and scores) are identical;
5. the passage store of each: its size and blocks (an update leaves short blocks beside a
   change).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import write_queries  # benchmarks/scale.py, beside this script

from searchain.documents.collection import Documents
from searchain.eval.datasets import data_dir, pooled_corpus
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.embedded.index import BM25Index
from searchain.tools.retrieval.embedded.indexer.update import update


class Writer:
    """Markdown files of sampled words, each call a new text."""

    def __init__(self, data: str | None, sections: int, seed: int = 7) -> None:
        counts = collections.Counter(
            w for p in pooled_corpus(data_dir(data)) for w in p.text.split()
        )
        self.words = np.array(list(counts))
        weights = np.array(list(counts.values()), np.float64)
        self.p = weights / weights.sum()
        self.sections = sections
        self.rng = np.random.default_rng(seed)

    def text(self, title: str) -> str:
        drawn = self.rng.choice(self.words, size=(self.sections, 97), p=self.p)
        body = "".join(f"## Part {i}\n\n{' '.join(row)}\n\n" for i, row in enumerate(drawn))
        return f"# {title}\n\n{body}"


def file_of(root: Path, n: int) -> Path:
    return root / f"d{n // 1000:04d}" / f"f{n:07d}.md"


def write_files(root: Path, writer: Writer, files: int) -> None:
    for n in range(files):
        path = file_of(root, n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(writer.text(f"Document {n}"))


def change(root: Path, writer: Writer, live: list[int], fraction: float, next_new: int) -> int:
    """Edit, delete and add files (80/10/10) for ``fraction`` of them; the next new number."""
    rng = writer.rng
    touched = rng.choice(len(live), size=max(1, int(len(live) * fraction)), replace=False)
    edits, deletes = np.split(touched, [int(len(touched) * 0.8)])
    deletes, adds = deletes[: len(deletes) // 2], len(deletes) - len(deletes) // 2
    for i in edits:
        file_of(root, live[i]).write_text(writer.text(f"Document {live[i]} edited"))
    for i in sorted(deletes, reverse=True):
        file_of(root, live[i]).unlink()
        live.pop(i)
    for _ in range(adds):
        path = file_of(root, next_new)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(writer.text(f"Document {next_new} new"))
        live.append(next_new)
        next_new += 1
    return next_new


def throughput(index: BM25Index, queries: list[str]) -> float:
    started = time.perf_counter()
    for query in queries:
        index.search(query, 10)
    return len(queries) / (time.perf_counter() - started)


def documents_arguments(parser: argparse.ArgumentParser, files: int, updates: int) -> None:
    """The documents and updates options both update benchmarks take."""
    parser.add_argument("--files", type=int, default=files)
    parser.add_argument("--sections", type=int, default=10)
    parser.add_argument("--updates", type=int, default=updates)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--data", default=None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    documents_arguments(parser, files=100_000, updates=20)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    root = args.work / "docs"
    writer = Writer(args.data, args.sections)
    started = time.perf_counter()
    write_files(root, writer, args.files)
    print(f"wrote {args.files:,} files in {time.perf_counter() - started:.0f} s", flush=True)

    started = time.perf_counter()
    built = embedded.build(Documents([root]), args.work / "index")
    build = time.perf_counter() - started
    print(f"full build: {len(built):,} passages in {build:.1f} s", flush=True)

    live, next_new, times = list(range(args.files)), args.files, []
    for n in range(args.updates):
        next_new = change(root, writer, live, args.fraction, next_new)
        started = time.perf_counter()
        _, _, changes = update(args.work / "index", Documents.again)
        times.append(time.perf_counter() - started)
        print(f"update {n + 1}: {changes} in {times[-1]:.1f} s", flush=True)

    started = time.perf_counter()
    fresh = embedded.build(Documents([root]), args.work / "fresh")
    rebuild = time.perf_counter() - started
    updated = BM25Index.load(args.work / "index")
    queries = write_queries(args.data, args.work)
    same = sum(
        [(p.id, p.score) for p in updated.search(q, 10)]
        == [(p.id, p.score) for p in fresh.search(q, 10)]
        for q in queries
    )
    rates: dict[str, list[float]] = {"updated": [], "fresh": []}
    for _ in range(args.rounds):
        rates["updated"].append(throughput(updated, queries))
        rates["fresh"].append(throughput(fresh, queries))
    best = {name: max(values) for name, values in rates.items()}
    median = statistics.median(times)
    print()
    print(f"passages: {len(updated):,} after {args.updates} updates ({len(fresh):,} fresh)")
    print(f"full build: {build:.1f} s; fresh build of the final files: {rebuild:.1f} s")
    print(
        f"update of {args.fraction:.0%} of the files: median {median:.1f} s, slowest "
        f"{max(times):.1f} s = {median / build:.1%} (slowest {max(times) / build:.1%}) of the "
        "full build"
    )
    print(
        f"single-query q/s, top 10: updated {best['updated']:.0f}, fresh {best['fresh']:.0f} "
        f"({best['updated'] / best['fresh']:.2f}×; best of {args.rounds} alternating rounds)"
    )
    print(f"top 10 identical (ids and scores): {same} of {len(queries)} queries")
    (mb, blocks), (fresh_mb, fresh_blocks) = store_size(updated.path), store_size(fresh.path)
    print(
        f"passage store: updated {mb:.1f} MB in {blocks:,} blocks, fresh {fresh_mb:.1f} MB in "
        f"{fresh_blocks:,} blocks ({mb / fresh_mb - 1:.2%} larger)"
    )


def store_size(version: Path) -> tuple[float, int]:
    """The passage store's size in MB and its number of blocks."""
    blocks = np.load(version / "passages.blocks.npy", mmap_mode="r")
    return (version / "passages.zst").stat().st_size / 1e6, len(blocks) - 1


if __name__ == "__main__":
    main()
