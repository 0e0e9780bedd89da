"""A fair share per user: at most ``SEARCHAIN_RUNS_PER_USER`` runs under way per user (default 4).

Without it one user could queue any number of runs, and every other user's question would wait
behind them for a worker. A run past the bound is refused with a 429 that says how many are
under way; the user retries when one finishes (the sdk's callers see the status).

Counted in the server's PostgreSQL, so every worker process sees the same count: the user's runs
``pending`` or ``running`` in Aegra's ``runs`` table, plus runs admitted a moment ago whose row
is not written yet (``searchain_admissions``: one row per admitted run, tied to its thread, which
holds one run under way at a time). A run's ``created_at`` is the start of the server's
transaction, which may precede the admission, so a run of the thread from up to 30 seconds before
matches it; an admission whose thread is gone (a stateless run's) counts no more. A lock per user
makes the count and the admission one step, so a burst of simultaneous requests cannot all see
room for itself. A run the server will refuse (another user's thread, a busy one) is not
admitted; one refused for another reason (an unknown assistant) stops counting after 30 seconds.
"""

from __future__ import annotations

import os

from langgraph_sdk import Auth

RUNS_PER_USER_ENV = "SEARCHAIN_RUNS_PER_USER"
DEFAULT_RUNS_PER_USER = 4

TABLE = """
CREATE TABLE IF NOT EXISTS searchain_admissions (
    user_id text NOT NULL,
    thread_id text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
)
"""
"""Runs admitted whose row may not be in ``runs`` yet (made by ``searchain.server.prepare``)."""

EXPIRED = "DELETE FROM searchain_admissions WHERE at < now() - interval '30 seconds'"
"""Admissions whose run was never created stop counting."""

ADMISSIBLE = """
SELECT NOT EXISTS (SELECT 1 FROM thread WHERE thread_id = %(thread)s AND user_id <> %(user)s)
   AND NOT EXISTS (SELECT 1 FROM runs WHERE thread_id = %(thread)s
                   AND status IN ('pending', 'running'))
"""
"""The run will be created: the thread is the user's (or new) and has no run under way (else the
server refuses it: 404, 409); only then is an admission recorded, so a refused run leaves none."""

ADMIT = (
    "DELETE FROM searchain_admissions WHERE thread_id = %(thread)s",
    "INSERT INTO searchain_admissions (user_id, thread_id) VALUES (%(user)s, %(thread)s)",
)
"""One admission per thread, the newest."""

UNDER_WAY = """
SELECT (SELECT count(*) FROM runs WHERE user_id = %(user)s AND status IN ('pending', 'running'))
     + (SELECT count(*) FROM searchain_admissions a
        WHERE a.user_id = %(user)s
        AND EXISTS (SELECT 1 FROM thread t WHERE t.thread_id = a.thread_id)
        AND NOT EXISTS (
            SELECT 1 FROM runs r WHERE r.thread_id = a.thread_id
            AND r.created_at >= a.at - interval '30 seconds'))
"""


def runs_per_user() -> int:
    """The bound (``$SEARCHAIN_RUNS_PER_USER``); 0 means none. ValueError if malformed."""
    raw = os.environ.get(RUNS_PER_USER_ENV, "").strip()
    if not raw:
        return DEFAULT_RUNS_PER_USER
    if not raw.isdigit():
        raise ValueError(f"{RUNS_PER_USER_ENV}={raw!r}: give a whole number (0: no bound)")
    return int(raw)


async def admit(user: str, thread_id: str) -> None:
    """Admit one more run of ``user`` on ``thread_id``, or raise a 429 if they are at the bound."""
    import psycopg

    bound = runs_per_user()
    if not bound:
        return
    connect = psycopg.AsyncConnection.connect(os.environ["DATABASE_URL"])
    async with await connect as conn, conn.transaction():
        lock = "SELECT pg_advisory_xact_lock(hashtext('searchain-runs:' || %(user)s))"
        await conn.execute(lock, {"user": user})
        await conn.execute(
            "DELETE FROM searchain_admissions WHERE at < now() - interval '1 minute'"
        )
        row = await (await conn.execute(UNDER_WAY, {"user": user})).fetchone()
        under_way = int(row[0]) if row else 0
        if under_way >= bound:
            raise Auth.exceptions.HTTPException(
                status_code=429,
                detail=f"{user} has {under_way} runs under way, the most one user may "
                f"({RUNS_PER_USER_ENV}): ask again when one has finished",
            )
        names = {"user": user, "thread": thread_id}
        row = await (await conn.execute(ADMISSIBLE, names)).fetchone()
        if row and row[0]:
            for statement in ADMIT:
                await conn.execute(statement, names)
