"""How long an embedded index takes to open and to answer its first search, and what it keeps.

Each run is a fresh process (nothing imported or cached before it): the time to import the
index module, to open the index, to run one search (which loads the scoring kernel), and the
process's private memory (``RssAnon``) after it. Run it with another checkout's code on the same
index (``PYTHONPATH=OTHER``) to compare releases:

    python benchmarks/open_index.py INDEX [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

PROBE = """
import json, sys, time
started = time.perf_counter()
from searchain.tools.retrieval.embedded.index import BM25Index
imported = time.perf_counter()
index = BM25Index.load(sys.argv[1])
opened = time.perf_counter()
index.search(sys.argv[2])
searched = time.perf_counter()
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({"import_ms": 1000 * (imported - started), "open_ms": 1000 * (opened - imported),
                  "first_search_ms": 1000 * (searched - opened),
                  "rss_anon_mib": int(status["RssAnon"].split()[0]) / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="who wrote the history of the peloponnesian war")
    args = parser.parse_args()
    for run in range(1, args.runs + 1):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, args.index, args.query], capture_output=True, text=True
        )
        if done.returncode != 0:
            sys.exit(done.stderr.strip().splitlines()[-1])
        f = json.loads(done.stdout)
        print(
            f"run {run}: import {f['import_ms']:.0f} ms, open {f['open_ms']:.1f} ms, first search "
            f"{f['first_search_ms']:.0f} ms, RssAnon after it {f['rss_anon_mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
