"""The files a user's threads hold on the team server: at most ``SEARCHAIN_UPLOADS_PER_USER``.

A file sent in a message is read into its thread's state (:mod:`searchain.documents.uploads`),
bounded there per file and per thread; what bounds a user is counted here, where every request
passes (:func:`searchain.server.auth.caller_settings`) before the server acts on it: a run's
input or command, a thread state update, wherever messages come in. A ledger of searchain's own
in the server's PostgreSQL (``searchain_uploads``, one row a file a thread was sent) counts a
user's files in the threads of theirs that still exist: deleting a thread frees its files'
places at once, and a stateless run's files (its thread is deleted when it ends) hold none
afterwards. A file counts from the request that sends it, read or not.

The request's file blocks are also checked here (shape, type, size: the checks that need no
parser), so a file that cannot be taken is refused with a 400 before any run starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from searchain.documents.uploads import SentFile, sent_files
from searchain.indexed import content_hash
from searchain.server.fair_share import pool
from searchain.server.settings import deployment

TABLE = """
CREATE TABLE IF NOT EXISTS searchain_uploads (
    user_id text NOT NULL,
    thread_id text NOT NULL,
    sha256 text NOT NULL,
    name text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (thread_id, sha256, name)
);
CREATE INDEX IF NOT EXISTS searchain_uploads_user ON searchain_uploads (user_id)
"""
"""The ledger (made by ``searchain.server.prepare``)."""

LOCK = "SELECT pg_advisory_xact_lock(hashtext('searchain-uploads:' || %(user)s))"
OWNED = "EXISTS (SELECT 1 FROM thread t WHERE t.thread_id = u.thread_id AND t.user_id = u.user_id)"
"""A row's thread exists and is its user's (Aegra's ``thread`` table)."""
GONE = f"""
DELETE FROM searchain_uploads u WHERE u.user_id = %(user)s
AND u.at < now() - interval '10 minutes' AND NOT {OWNED}
"""
"""Rows of threads deleted (or never made: a refused request's), past the moment a thread is
made after its first run's request."""
HELD = f"SELECT count(*) FROM searchain_uploads u WHERE u.user_id = %(user)s AND {OWNED}"
ADD = """
INSERT INTO searchain_uploads (user_id, thread_id, sha256, name)
VALUES (%(user)s, %(thread)s, %(sha)s, %(name)s) ON CONFLICT DO NOTHING
"""


def requested_files(request: Mapping[str, Any]) -> list[SentFile]:
    """The files a request sends in messages, wherever it carries them; ValueError in one line.

    A run's ``input``, a run's ``command.update`` (an object, or a list of pairs) and a thread
    state update's ``values`` (an object, or a list of them) may each add messages, which a
    later run of the thread reads.
    """
    limit = deployment().context.upload_max_mib << 20
    files: list[SentFile] = []
    for message in _messages(request):
        if isinstance(message, Mapping):
            content = message.get("content")
        else:  # a (role, content) pair, which LangGraph takes for a message too
            pair = isinstance(message, list | tuple) and len(message) == 2
            content = message[1] if pair else None
        if isinstance(content, list):
            files += sent_files(content, limit)
    return files


def _messages(request: Mapping[str, Any]) -> list[Any]:
    updates: list[Any] = [request.get("input")]
    values = request.get("values")
    updates += values if isinstance(values, list) else [values]
    command = request.get("command")
    update = command.get("update") if isinstance(command, Mapping) else None
    if isinstance(update, list):  # [[key, value], ...]
        pairs = [p for p in update if isinstance(p, list | tuple) and len(p) == 2]
        update = {"messages": [m for k, v in pairs if k == "messages" for m in _listed(v)]}
    updates.append(update)
    return [m for u in updates if isinstance(u, Mapping) for m in _listed(u.get("messages"))]


def _listed(messages: object) -> list[Any]:
    return messages if isinstance(messages, list) else [messages] if messages else []


async def admit_files(ctx: Auth.types.AuthContext, request: Mapping[str, Any]) -> None:
    """Count the files ``request`` sends against its user's bound, or refuse it (400, 403)."""
    try:
        files = requested_files(request)
    except ValueError as exc:
        raise Auth.exceptions.HTTPException(status_code=400, detail=str(exc)) from None
    if not files:
        return
    user = ctx.user.identity
    bound = deployment().context.uploads_per_user
    thread = str(request.get("thread_id") or "")
    if not thread:
        raise Auth.exceptions.HTTPException(
            status_code=400,
            detail="files are read into a thread: send them in the messages of a thread's run",
        )
    rows = {(content_hash(f.data), f.name) for f in files}
    async with (await pool()).connection() as conn, conn.transaction():
        await conn.execute(LOCK, {"user": user})
        await conn.execute(GONE, {"user": user})
        known = await conn.execute(
            "SELECT sha256, name FROM searchain_uploads WHERE thread_id = %(thread)s",
            {"thread": thread},
        )
        new = rows - {tuple(row) for row in await known.fetchall()}
        held = await (await conn.execute(HELD, {"user": user})).fetchone()
        count = int(held[0]) if held else 0
        if new and count + len(new) > bound:
            raise Auth.exceptions.HTTPException(
                status_code=403,
                detail=(
                    f"{user}'s threads hold {count} files and this message sends {len(new)} "
                    f"more, over the {bound} one user may hold (SEARCHAIN_UPLOADS_PER_USER): "
                    "delete a thread that holds some, then send it again"
                ),
            )
        for sha, name in sorted(new):
            await conn.execute(ADD, {"user": user, "thread": thread, "sha": sha, "name": name})
