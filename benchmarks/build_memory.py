"""Where an embedded build's memory goes: peak RSS and time per stage of one build.

Builds the first ``--size`` passages of a corpus (``standard`` tokens, k1 = 1.2, b = 0.75, as
``engines.py`` does) in this process, sampling every 20 ms the resident memory of this process
and of the whole process tree (the worker processes too), and prints each stage's peaks: the
encoding (passages read, tokenised by the workers, their postings buffered), each segment's
counting sort, the term-range merge that writes the score matrix, the checksums. ``--max-segment``
and ``--max-range`` replace the caps on a segment's tokens and a merged range's postings
(``segments.MAX_SEGMENT``, ``MAX_RANGE``) to compare settings in one sitting:

    python benchmarks/build_memory.py CORPUS --size 1000000 --work W
    python benchmarks/build_memory.py CORPUS --work W --max-segment 1G --max-range 16M
    python benchmarks/build_memory.py CORPUS --work W --workers 2

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

from engines import tree_rss  # benchmarks/engines.py, beside this script

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.postings import segments


def own_rss() -> int:
    """This process's resident bytes now."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class StagePeaks:
    """Peak RSS (tree, own) per named stage, sampled in a thread every 20 ms."""

    def __init__(self) -> None:
        self.stage = "starting"
        self.peaks: dict[str, list[int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            tree, own = tree_rss(os.getpid()), own_rss()
            peak = self.peaks.setdefault(self.stage, [0, 0])
            peak[0], peak[1] = max(peak[0], tree), max(peak[1], own)
            self._stop.wait(0.02)

    def __enter__(self) -> StagePeaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, required=True, help="where the index is built")
    parser.add_argument("--memory", default=None, help="the build's budget, as --memory takes it")
    parser.add_argument("--max-segment", default=None, help="tokens a segment holds at most")
    parser.add_argument("--max-range", default=None, help="postings a merged range holds at most")
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: the build's)"
    )
    args = parser.parse_args()
    if args.max_segment:
        segments.MAX_SEGMENT = segments.parse_size(args.max_segment)
    if args.max_range:
        segments.MAX_RANGE = segments.parse_size(args.max_range)
    memory = segments.parse_size(args.memory) if args.memory else None
    count = segments.PostingsBuilder._flush

    with StagePeaks() as peaks:

        def flush(builder: segments.PostingsBuilder) -> None:
            before, peaks.stage = peaks.stage, "counting a segment"
            try:
                count(builder)
            finally:
                peaks.stage = before

        segments.PostingsBuilder._flush = flush  # type: ignore[method-assign]
        started = time.perf_counter()
        stamps: list[tuple[str, float]] = []

        def stage(line: str) -> None:
            peaks.stage = line.split(":")[0]
            stamps.append((line, time.perf_counter() - started))

        peaks.stage = "encoding"
        embedded.build(
            read_corpus(args.corpus, limit=args.size),
            args.work / f"searchain-{args.size}",
            embedded.Options(
                k1=1.2,
                b=0.75,
                tokenizer="standard",
                overwrite=True,
                memory=memory,
                workers=args.workers,
            ),
            stage=stage,
        )
        total = time.perf_counter() - started
    print(
        f"{args.size:,} passages, segments of at most {segments.MAX_SEGMENT:,} tokens, ranges of"
        f" at most {segments.MAX_RANGE:,} postings, budget {memory or segments.default_memory():,}"
        f", {'default' if args.workers is None else args.workers} workers"
    )
    for line, at in stamps:
        print(f"  at {at:6.1f} s: {line}")
    print(f"built in {total:.1f} s")
    print("| stage | peak RSS, process tree | peak RSS, this process |\n| --- | --- | --- |")
    for name, (tree, own) in peaks.peaks.items():
        print(f"| {name} | {tree / 2**30:.2f} GiB | {own / 2**30:.2f} GiB |")


if __name__ == "__main__":
    main()
