"""Memory of one process that runs every cheap method once with the real local model.

    python benchmarks/methods_memory.py [--data ../shared/data] [--dataset musique]

Runs ``searchain eval`` in-process (as a notebook or a long-lived server would), one question per
method, ``--llm local --reader llm``, and prints the process's resident memory after each method
and its peak at the end: what the llama.cpp prompt caches hold (see
``searchain.tools.llms.llamacpp.prompt_cache``). Asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from searchain.cache import resident_bytes
from searchain.cli.app import app
from searchain.eval.datasets import data_dir
from searchain.methods import METHODS

COSTLY = ("auto-cot", "tot", "dsp")
"""Methods of many calls each (as tests/integration/test_every_method.py leaves them out)."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--dataset", default="musique")
    args = parser.parse_args()
    root = data_dir(args.data)
    runner = CliRunner()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for method in (m for m in METHODS if m not in COSTLY):
            out = Path(tmp) / f"{method}.jsonl"
            done = runner.invoke(app, [
                "eval", "--dataset", args.dataset, "--split", "report", "--method", method,
                "--llm", "local", "--reader", "llm", "--limit", "1", "--data", str(root),
                "--index", str(Path(tmp) / "pooled-index"), "--out", str(out),
            ])  # fmt: skip
            print(f"{method:24} exit {done.exit_code}  RSS {resident_bytes() / 2**30:.2f} GiB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"peak RSS {peak:.2f} GiB, {time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
