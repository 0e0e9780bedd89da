"""Many users at once on the self-hosted server: questions/s and latency per question.

Run (not in CI; a few minutes):
    .venv/bin/python benchmarks/server_load.py [--users 8] [--questions 5] [--delay 0.5] \\
        [--workers 1 2] [--burst 50 [--bounds 4 0]]

For each worker count, starts ``scripts/server.sh`` (Aegra; PostgreSQL and Redis on loopback) with
the demo index and a scripted LLM that sleeps ``--delay`` seconds per call (a stand-in for a
remote model's latency; SearChain makes 3 calls per question here: chain, reader, trace), then
``--users`` users each ask ``--questions`` questions one after another on their own thread, all
users at once, through the langgraph-sdk client. Prints questions/s over the whole load and the
p50/p95 of one question's round trip; checks every answer and every thread's history. Asserts
nothing about time.

With ``--burst N`` it measures the fair share instead (``SEARCHAIN_RUNS_PER_USER``): on a server
with the last of ``--workers``, one user asks a question on an idle server, and again right after
another user submitted N runs at once (``--questions`` rounds of each, the burst drained between
rounds); once with each bound of ``--bounds`` (default: 4, the default bound, and 0, none).
Prints the asking user's p50 behind the burst beside the idle server's, and how many of the
bursts were refused (429).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVER = str(ROOT / "scripts" / "server.sh")


def start(
    work: Path, workers: int, delay: float, users: list[str], **settings: str
) -> tuple[str, dict, dict]:
    keys = {user: f"sk-load-{user}-{uuid.uuid4().hex}" for user in users}
    (work / "keys.toml").write_text("[keys]\n" + "".join(f'{u} = "{k}"\n' for u, k in keys.items()))
    script = {
        "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
        "trace": "He was influenced by Giotto [1]. So the final answer is Giotto.",
        "reader": "Answer: Giotto\nConfidence: 0.9",
        "delay": delay,
    }
    (work / "script.json").write_text(json.dumps(script))
    env = {
        **os.environ,
        "SEARCHAIN_API_KEYS_FILE": str(work / "keys.toml"),
        "SERVER_BASE": str(work / f"base-{workers}"),
        "SERVER_WORKERS": str(workers),
        "SEARCHAIN_INDEX": str(work / "index"),
        "SEARCHAIN_LLM": f"scripted:{work / 'script.json'}",
        "SEARCHAIN_READER": "llm",
        "LOG_LEVEL": "WARNING",
        **settings,
    }
    env.pop("DATABASE_URL", None)  # a database of the benchmark's own (scripts/postgres.sh)
    done = subprocess.run([SERVER, "start"], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"the server did not start: {done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1], keys, env


def ask_in_turn(client: Any, questions: int, user: str) -> tuple[str, list[float]]:
    """A new thread, and the seconds each of ``questions`` questions asked on it in turn took."""
    thread = client.threads.create()["thread_id"]
    latencies = []
    for n in range(questions):
        started = time.perf_counter()
        out = client.runs.wait(thread, "searchain", input={"question": f"Q{n} of {user}?"})
        latencies.append(time.perf_counter() - started)
        assert out["answer"] == "Giotto", out
    return thread, latencies


def load(url: str, keys: dict[str, str], questions: int) -> tuple[float, list[float]]:
    from langgraph_sdk import get_sync_client

    def user_asks(user: str) -> list[float]:
        client = get_sync_client(url=url, api_key=keys[user], timeout=600)
        thread, latencies = ask_in_turn(client, questions, user)
        values = client.threads.get_state(thread)["values"]
        asked = [t["question"] for t in values["history"]] + [values["question"]]
        assert asked == [f"Q{n} of {user}?" for n in range(questions)], asked
        return latencies

    started = time.perf_counter()
    with ThreadPoolExecutor(len(keys)) as pool:
        latencies = [x for user in pool.map(user_asks, list(keys)) for x in user]
    return time.perf_counter() - started, sorted(latencies)


def fair_share(url: str, keys: dict[str, str], burst: int, rounds: int) -> str:
    """One user's question idle and right behind another user's burst, ``rounds`` times each."""
    import httpx
    from langgraph_sdk import get_sync_client

    asker = get_sync_client(url=url, api_key=keys["user0"], timeout=600)
    burster = get_sync_client(url=url, api_key=keys["user1"], timeout=600)
    idle = sorted(ask_in_turn(asker, 1, "user0")[1][0] for _ in range(rounds))

    def submit(_: int) -> tuple[str, str] | None:
        thread = burster.threads.create()["thread_id"]
        try:
            run = burster.runs.create(thread, "searchain", input={"question": "Burst?"})
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code == 429:
                return None
            raise
        return thread, run["run_id"]

    behind, admitted = [], 0
    with ThreadPoolExecutor(16) as pool:
        for _ in range(rounds):
            accepted = [run for run in pool.map(submit, range(burst)) if run]
            behind.append(ask_in_turn(asker, 1, "user0")[1][0])
            for thread, run_id in accepted:  # the burst drains before the next round
                burster.runs.join(thread, run_id)
            admitted += len(accepted)
    behind.sort()
    return (
        f"one question idle p50 {idle[len(idle) // 2]:.2f} s, right behind a burst of {burst} "
        f"p50 {behind[len(behind) // 2]:.2f} s (max {behind[-1]:.2f}; {rounds} rounds); of the "
        f"bursts {admitted} admitted, {rounds * burst - admitted} refused (429)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--burst", type=int, default=0, help="measure the fair share instead")
    parser.add_argument("--bounds", type=int, nargs="+", default=[4, 0])
    args = parser.parse_args()
    users = [f"user{i}" for i in range(args.users)]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        subprocess.run(
            [sys.executable, "-m", "searchain", "index", "--demo", "--index", str(work / "index")],
            check=True,
            capture_output=True,
        )
        if args.burst:
            for bound in args.bounds:
                workers = args.workers[-1]
                extra = {"SEARCHAIN_RUNS_PER_USER": str(bound)}
                url, keys, env = start(work, workers, args.delay, ["user0", "user1"], **extra)
                try:
                    figures = fair_share(url, keys, args.burst, args.questions)
                finally:
                    subprocess.run([SERVER, "stop"], env=env, capture_output=True, check=False)
                print(f"{workers} workers, runs per user {bound or 'unbounded'}: {figures}")
            return
        for workers in args.workers:
            url, keys, env = start(work, workers, args.delay, users)
            try:
                wall, latencies = load(url, keys, args.questions)
            finally:
                subprocess.run([SERVER, "stop"], env=env, capture_output=True, check=False)
            total = len(latencies)
            print(
                f"{workers} worker(s), {args.users} users x {args.questions} questions, LLM delay "
                f"{args.delay} s/call: {total} answered in {wall:.1f} s = {total / wall:.2f} "
                f"questions/s; one question p50 {latencies[total // 2]:.2f} s, "
                f"p95 {latencies[int(total * 0.95)]:.2f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
