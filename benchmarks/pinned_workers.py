"""Two processes running the offline model at once: on every core each, or on a core of their own.

    python benchmarks/pinned_workers.py [--processes 2] [--replies 3]

The test suite runs in pytest-xdist workers, and each of several of its tests runs SmolLM2 on
llama.cpp, whose threads (one per core the process may use) wait for each other at every step.
This starts ``--processes`` processes at once, each loading SmolLM2 and writing ``--replies``
greedy replies of 120 tokens to a 365-token prompt, twice: first each on every core (llama.cpp's
threads of both processes sharing them), then each pinned to cores of its own (as
``tests/conftest.py`` pins the workers). Prints the seconds per reply of each process, after a
first reply that warms the model, and the tokens each wrote (greedy: the same in both runs).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

PROMPT = (
    "Question: "
    + " ".join(
        ["Lorenzo Monaco was an Italian painter of the late Gothic-early Renaissance age."] * 20
    )
    + "\nWho influenced Lorenzo Monaco? Answer in detail."
)


def replies(count: int) -> None:
    """In a child process: load the model, warm it, print the seconds of each of ``count``."""
    from langchain_core.messages import HumanMessage

    from searchain.tools.llms.llamacpp import load_gguf
    from searchain.tools.llms.resolve import smollm2_path

    model = load_gguf(smollm2_path(), max_tokens=120)
    model.invoke([HumanMessage(PROMPT)])
    for i in range(count):
        started = time.perf_counter()
        reply = model.invoke([HumanMessage(f"{PROMPT} ({i})")])  # a new prompt: no cached state
        tokens = (reply.usage_metadata or {}).get("output_tokens", 0)
        print(time.perf_counter() - started, tokens, flush=True)


def run_at_once(processes: int, count: int, pinned: bool) -> list[list[tuple[float, int]]]:
    """Seconds and tokens of each reply of each of ``processes`` children started together."""
    cores = sorted(os.sched_getaffinity(0))
    children = []
    for k in range(processes):
        share = cores[k::processes] or [cores[k % len(cores)]]
        children.append(
            subprocess.Popen(
                [sys.executable, __file__, "--child", str(count)],
                stdout=subprocess.PIPE,
                text=True,
                preexec_fn=(lambda share=share: os.sched_setaffinity(0, share)) if pinned else None,
            )
        )
    out = [child.communicate()[0].splitlines() for child in children]
    return [[(float(line.split()[0]), int(line.split()[1])) for line in lines] for lines in out]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--replies", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        replies(args.child)
        return
    print(f"{args.processes} processes at once on {len(os.sched_getaffinity(0))} cores")
    for pinned in (False, True):
        seconds = run_at_once(args.processes, args.replies, pinned)
        each = "; ".join(" ".join(f"{s:.1f} s/{n}" for s, n in child) for child in seconds)
        median = statistics.median(s for child in seconds for s, _ in child)
        where = "each on cores of its own" if pinned else "each on every core"
        print(f"{where}: median {median:.1f} s a reply (each process, seconds/tokens: {each})")


if __name__ == "__main__":
    main()
