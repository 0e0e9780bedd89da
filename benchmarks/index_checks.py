"""What checking an index's bytes costs: at open, on first touch, and searching once checked.

Run:
    .venv/bin/python benchmarks/index_checks.py INDEX [--queries 300] [--rounds 3]

Each round is two fresh processes on the same index, alternated: one as searchain opens an index
(the tables checked whole at open, the postings and passages chunk by chunk as first read:
searchain/tools/retrieval/embedded/directory/checked.py), one with those checks switched off (sizes
only, as the release before them). Each opens the index, answers the benchmark's questions one at a
time (the first pass: chunks checked as they are first read, the kernel loading), then again
(everything read once: what a server answers at), then all as one batch. Prints the times and the
ratios of each round; asserts nothing. Queries: the shared data's tuning split, as
benchmarks/scale.py asks them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PROBE = """
import json, sys, time
from searchain.tools.retrieval.embedded import index as bm25
from searchain.tools.retrieval.embedded.directory import files as index_files
if sys.argv[3] == "off":  # sizes only, no content: what opening did before the checks
    bm25.check_files = lambda root, files, full: None
started = time.perf_counter()
index = bm25.BM25Index.load(sys.argv[1])
opened = time.perf_counter()
if sys.argv[3] == "off":
    index._checked = None
    index._store.checked = None
queries = json.loads(open(sys.argv[2]).read())
figures = {"open_ms": 1000 * (opened - started)}
for name in ("first_pass_qps", "again_qps"):
    began = time.perf_counter()
    for q in queries:
        index.search(q, k=10)
    figures[name] = len(queries) / (time.perf_counter() - began)
began = time.perf_counter()
index.search_batch(queries, k=10)
figures["batch_qps"] = len(queries) / (time.perf_counter() - began)
print(json.dumps(figures))
"""


def run(index: str, queries: Path, mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, index, str(queries), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import tempfile

    from benchmarks.scale import write_queries

    parser = argparse.ArgumentParser()
    parser.add_argument("index")
    parser.add_argument("--data", default=None, help="the shared data (default ../shared/data)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="index-checks-"))
    queries = work / "queries.json"
    queries.write_text(json.dumps(write_queries(args.data, work)[: args.queries]))
    print(
        f"{'round':5} {'checks':6} {'open ms':>8} {'1st pass q/s':>13} {'again q/s':>10} "
        f"{'batch q/s':>10}"
    )
    for round_ in range(1, args.rounds + 1):
        rows = {mode: run(args.index, queries, mode) for mode in ("on", "off")}
        for mode, r in rows.items():
            print(
                f"{round_:<5} {mode:6} {r['open_ms']:8.1f} {r['first_pass_qps']:13.1f} "
                f"{r['again_qps']:10.1f} {r['batch_qps']:10.1f}"
            )
        on, off = rows["on"], rows["off"]
        print(
            f"      on/off: first pass {on['first_pass_qps'] / off['first_pass_qps']:.2f}, "
            f"again {on['again_qps'] / off['again_qps']:.2f}, "
            f"batch {on['batch_qps'] / off['batch_qps']:.2f}"
        )


if __name__ == "__main__":
    main()
