"""How long ``searchain ask`` takes from its start to its first retrieval, on an embedded index.

Each run is a fresh process that runs the real CLI (``searchain ask QUESTION --index INDEX``,
then the options given after ``--``) and stops it as soon as the first search over the index has
returned: what a user waits before the first passage, whatever comes after. The clock starts
before searchain is imported. ``--llm scripted`` (the default here) plans at once, so nothing
hides the index's loading; ``--llm local`` (SmolLM2, the ``local`` extra) plans for real, as a
model would while the index's kernel loads beside it. Run it with another checkout's code
(``PYTHONPATH=OTHER``) to compare releases:

    python benchmarks/first_retrieval.py INDEX [--runs 3] [-- --llm local --reader llm]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = """
import json, os, sys, time
started = time.perf_counter()
from searchain.tools.retrieval.embedded.index import BM25Index

def first(method):
    def timed(*args, **kwargs):
        result = method(*args, **kwargs)
        print(json.dumps({"first_retrieval_s": time.perf_counter() - started}), flush=True)
        os._exit(0)  # the rest of the run is not what is measured
    return timed

BM25Index.search = first(BM25Index.search)
BM25Index.search_batch = first(BM25Index.search_batch)
from searchain.cli import main
sys.argv = ["searchain", "ask", *sys.argv[1:]]
main()
sys.exit("the run ended without a search over the index")
"""

SCRIPT = {
    "chains": ["[Query 1]: Who wrote the Peloponnesian War's history?\n[Answer 1]: Thucydides"],
    "reader": "Thucydides",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--question", default="Who wrote the history of the Peloponnesian War?")
    parser.epilog = "Options after -- go to searchain ask (default: a scripted LLM, --reader llm)."
    argv = sys.argv[1:]
    ask = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: len(argv) - len(ask) - bool(ask)] if ask else argv)
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        options = ask or ["--llm", f"scripted:{script}", "--reader", "llm"]
        index = str(args.index.absolute())
        command = [sys.executable, "-c", PROBE, args.question, "--index", index]
        command += ["--db", str(Path(scratch) / "threads.sqlite"), *options]
        for run in range(1, args.runs + 1):
            done = subprocess.run(command, capture_output=True, text=True, cwd=scratch)
            if done.returncode != 0:
                sys.exit(f"run {run} failed: {done.stderr.strip().splitlines()[-1:]}")
            seconds = json.loads(done.stdout.strip().splitlines()[-1])["first_retrieval_s"]
            print(f"run {run}: first retrieval {seconds:.2f} s after start ({' '.join(options)})")


if __name__ == "__main__":
    main()
