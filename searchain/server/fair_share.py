"""A fair share per user: at most ``SEARCHAIN_RUNS_PER_USER`` runs under way per user (default 4).

Without it one user could queue any number of runs, and every other user's question would wait
behind them for a worker. The share is kept in the server's PostgreSQL, so every worker process
sees the same count, in a ledger of searchain's own (``searchain_runs``, one row a run) that does
not wait for the server to write its rows:

- **where a run starts executing** (:func:`take`, called by the graph factories of
  :mod:`searchain.server.graphs` for every run the server executes, by whatever route it was
  made: a thread's, a stateless one, a resumed one, one the server made itself) the run takes a
  place in the ledger, or does not start: it ends at once with an error naming the bound. The
  place counts until the server records the run's end (a worker that dies leaves it held while
  the run is pending again; another worker takes the run up and finds its place).
- **where a run is requested** (:func:`admit`, from the server's authorization of every run it is
  asked for) the request is admitted into the ledger, or refused with a 429 that says how many
  are under way: the caller learns at once, and retries when one finishes. The admission's key
  travels in the run's ``config.metadata``, so the run, once executing, takes the admission's
  place rather than a second one.

An entry counts while its run can still execute: an admission for 30 seconds, or for as long as
the run it became is pending; a place for as long as its run is pending or running. A lock per
user makes the count and the entry one step, so simultaneous requests cannot all see room.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import weakref
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from langgraph_sdk import Auth

RUNS_PER_USER_ENV = "SEARCHAIN_RUNS_PER_USER"
DEFAULT_RUNS_PER_USER = 4

ADMISSION_KEY = "searchain_admission"
"""Where a run's ``config.metadata`` carries the key of its admission."""

TABLE = """
CREATE TABLE IF NOT EXISTS searchain_runs (
    key text PRIMARY KEY,
    user_id text NOT NULL,
    run_id text,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS searchain_runs_user ON searchain_runs (user_id);
DROP TABLE IF EXISTS searchain_admissions
"""
"""The ledger (made by ``searchain.server.prepare``); ``searchain_admissions`` was the earlier
release's, which counted on the server's rows."""

LOCK = "SELECT pg_advisory_xact_lock(hashtext('searchain-runs:' || %(user)s))"

DEAD = """
DELETE FROM searchain_runs s WHERE s.user_id = %(user)s AND NOT (
    (s.run_id IS NULL AND (s.at > now() - interval '30 seconds' OR EXISTS (
        SELECT 1 FROM runs r WHERE r.user_id = s.user_id AND r.status IN ('pending', 'running')
        AND r.config -> 'metadata' ->> 'searchain_admission' = s.key)))
    OR (s.run_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM runs r WHERE r.run_id = s.run_id AND r.status IN ('pending', 'running'))))
"""
"""Entries whose run can no longer execute: an admission older than 30 seconds whose run is not
pending or running (never made: refused after its admission), a place whose run has ended (its
worker gave it back, or died after the run was finished elsewhere)."""

UNDER_WAY = "SELECT count(*) FROM searchain_runs WHERE user_id = %(user)s"


def runs_per_user() -> int:
    """The bound (``$SEARCHAIN_RUNS_PER_USER``); 0 means none. ValueError if malformed."""
    raw = os.environ.get(RUNS_PER_USER_ENV, "").strip()
    if not raw:
        return DEFAULT_RUNS_PER_USER
    if not raw.isdigit():
        raise ValueError(f"{RUNS_PER_USER_ENV}={raw!r}: give a whole number (0: no bound)")
    return int(raw)


def at_bound(user: str, under_way: int, then: str) -> str:
    """The one line that refuses a run past the bound, and what ``then``."""
    return (
        f"{user} has {under_way} runs under way, the most one user may ({RUNS_PER_USER_ENV}): "
        f"{then}"
    )


POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
"""A pool of connections to the server's database per event loop (a worker has one): a run
costs the ledger two short transactions, not two new connections."""


async def pool() -> Any:
    """The connection pool of the running event loop, opened on first use."""
    from psycopg_pool import AsyncConnectionPool

    loop = asyncio.get_running_loop()
    found = POOLS.get(loop)
    if found is None:
        url = os.environ["DATABASE_URL"]
        found = POOLS[loop] = AsyncConnectionPool(url, min_size=1, max_size=4, open=False)
    await found.open()  # safe to call again, and from several tasks at once
    return found


@asynccontextmanager
async def ledger(user: str) -> AsyncIterator[Any]:
    """A transaction holding ``user``'s lock, the ledger cleared of entries that count no more."""
    async with (await pool()).connection() as conn, conn.transaction():
        await conn.execute(LOCK, {"user": user})
        await conn.execute(DEAD, {"user": user})
        yield conn


async def count(conn: Any, user: str) -> int:
    """The runs of ``user`` under way (or about to be), in the locked ledger."""
    row = await (await conn.execute(UNDER_WAY, {"user": user})).fetchone()
    return int(row[0]) if row else 0


async def admit(user: str, request: MutableMapping[str, Any]) -> None:
    """Admit the run ``request`` asks for, or raise a 429 if ``user`` is at the bound.

    The admission's key is written into the request's ``config.metadata``, which the server
    keeps in the run's configuration.
    """
    bound = runs_per_user()
    if not bound:
        return
    key = uuid.uuid4().hex
    async with ledger(user) as conn:
        if (under_way := await count(conn, user)) >= bound:
            raise Auth.exceptions.HTTPException(
                status_code=429, detail=at_bound(user, under_way, "ask again when one has finished")
            )
        insert = "INSERT INTO searchain_runs (key, user_id) VALUES (%(key)s, %(user)s)"
        await conn.execute(insert, {"key": key, "user": user})
    config = request.get("config")
    config = dict(config) if isinstance(config, MutableMapping) else {}
    metadata = config.get("metadata")
    config["metadata"] = {
        **(metadata if isinstance(metadata, MutableMapping) else {}),
        ADMISSION_KEY: key,
    }
    request["config"] = config


async def take(user: str, run_id: str, admission: str | None) -> str | None:
    """The ledger's key of the place ``run_id`` now holds; ValueError if ``user`` is at the bound.

    A run admitted by :func:`admit` takes its admission's place; a run taken up again after its
    worker died finds the place it held; any other run needs room under the bound. The place is
    never given back by hand: it counts for as long as the server counts the run as pending or
    running, that is until the server has recorded the run's end, whatever ended it (an answer,
    an error, a cancellation, a worker that died and a run finished elsewhere).
    """
    bound = runs_per_user()
    if not bound:
        return None
    async with ledger(user) as conn:
        if admission:
            claim = (
                "UPDATE searchain_runs SET run_id = %(run)s WHERE key = %(key)s "
                "AND user_id = %(user)s AND (run_id IS NULL OR run_id = %(run)s)"
            )
            claimed = await conn.execute(claim, {"run": run_id, "key": admission, "user": user})
            if claimed.rowcount:
                return admission
        key = f"run:{run_id}"
        held = await conn.execute("SELECT 1 FROM searchain_runs WHERE key = %(key)s", {"key": key})
        if await held.fetchone():
            return key
        if (under_way := await count(conn, user)) >= bound:
            raise ValueError(at_bound(user, under_way, "this run did not start"))
        insert = (
            "INSERT INTO searchain_runs (key, user_id, run_id) VALUES (%(key)s, %(user)s, %(run)s)"
        )
        await conn.execute(insert, {"key": key, "user": user, "run": run_id})
        return key
