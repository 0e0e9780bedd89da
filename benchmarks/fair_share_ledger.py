"""The fair share's cost per run: admit it, then take its place, through the real ledger.

Run (not in CI; seconds):
    .venv/bin/python benchmarks/fair_share_ledger.py --postgres URL [--runs 200]

``URL`` is a PostgreSQL server (``scripts/postgres.sh start`` prints one). The script makes a
throw-away database holding the ledger (``searchain_runs``) beside a stand-in for the server's
``runs`` table, times ``--runs`` runs of one user through :func:`admit` and :func:`take` (the
two transactions a run costs on the team server, each under the user's lock; a place counts
until the server records its run's end, and the stand-in table records none: every place is
free again at the next transaction), and prints the mean per run, with connections from the
per-loop pool and, for comparison, with a new connection for each transaction. Asserts nothing
about time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


async def one_user(runs: int) -> float:
    """Mean seconds per run of ``runs`` runs through the ledger."""
    from searchain.server.fair_share import ADMISSION_KEY, admit, take

    started = time.perf_counter()
    for i in range(runs):
        request: dict[str, Any] = {}
        await admit("bench", request)
        await take("bench", f"run-{i}", request["config"]["metadata"][ADMISSION_KEY])
    return (time.perf_counter() - started) / runs


class NewConnections:
    """A stand-in pool whose every connection is new (the cost the pool saves)."""

    async def open(self) -> None:
        return None

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        import psycopg

        async with await psycopg.AsyncConnection.connect(os.environ["DATABASE_URL"]) as conn:
            yield conn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL server's URL")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    import psycopg

    from searchain.server import fair_share

    name = f"ledger_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgres, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    os.environ["DATABASE_URL"] = f"{args.postgres.rpartition('/')[0]}/{name}"
    try:
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE runs (run_id text PRIMARY KEY, user_id text, status text, "
                "config jsonb)"
            )
            for statement in fair_share.TABLE.split(";"):
                conn.execute(statement)
        pooled = asyncio.run(one_user(args.runs))

        async def unpooled() -> float:
            fair_share.POOLS[asyncio.get_running_loop()] = NewConnections()
            return await one_user(args.runs)

        fresh = asyncio.run(unpooled())
        print(
            f"{args.runs} runs through the ledger: {pooled * 1000:.2f} ms a run with the pool, "
            f"{fresh * 1000:.2f} ms with a new connection per transaction"
        )
    finally:
        with psycopg.connect(args.postgres, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()
