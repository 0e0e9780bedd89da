"""Conversation threads in a database: a LangGraph checkpointer and what each thread was asked.

The checkpointer stores the graph's state after every step, the settings of the thread's runs
among it (``ThreadSettings.settings``: what ``searchain resume`` rebuilds the same models and
index from); this store adds, per thread, when it was made, its latest question (what
``searchain threads`` lists) and the state version (so a checkpoint written by an incompatible
searchain is refused, not misread).

Two databases: a SQLite file (a path; the default) or a PostgreSQL server (a ``postgresql://``
URL, with ``pip install 'searchain[postgres]'``). :func:`open_store` picks by the target's form and
refuses anything else in one line.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from searchain.errors import SettingError
from searchain.redact import redact_url
from searchain.state import STATE_VERSION, checkpoint_serializer

DEFAULT_DB = ".searchain/threads.sqlite"
BUSY_SECONDS = 60.0
"""How long a SQLite writer waits for another process's write to finish."""
LANGGRAPH_CHECKPOINT_COLUMNS = {"thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint"}
"""Columns of LangGraph's SQLite ``checkpoints`` table that tell it from another program's."""
POSTGRES_SCHEMES = ("postgresql", "postgres")
POSTGRES_HINT = "PostgreSQL threads need: pip install 'searchain[postgres]'"


class ThreadStore:
    """Threads and their checkpoints in one database; subclasses say how to reach it."""

    placeholder = "?"
    """The DB-API parameter marker of the driver."""
    where: str
    """The database as messages show it (never with a password)."""

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement in its own transaction; rows as tuples."""
        raise NotImplementedError

    def checkpointer(self) -> Any:
        """A LangGraph checkpointer on the same database, with searchain's types registered."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the connection."""
        raise NotImplementedError

    def lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold ``thread_id`` for one run; a second run on it fails at once with one line.

        Two runs on one thread would each extend the checkpoint they started from, and the last
        to write would silently drop the other's turn. The lock dies with its process, so a
        crashed run never leaves the thread stuck.
        """
        raise NotImplementedError

    def busy(self, thread_id: str) -> bool:
        """Whether a run holds ``thread_id`` now."""
        try:
            with self.lock(thread_id):
                return False
        except ValueError:
            return True

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._query(sql.replace("?", self.placeholder), args)

    def _create_table(self, time_type: str) -> None:
        self._execute(
            "CREATE TABLE IF NOT EXISTS searchain_threads (thread_id TEXT PRIMARY KEY, "
            f"created {time_type}, state_version INTEGER, question TEXT)"
        )

    def record(self, thread_id: str, question: str) -> None:
        """Remember a thread (its first question) or its latest question."""
        self._execute(
            "INSERT INTO searchain_threads (thread_id, created, state_version, question) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET question = excluded.question",
            (thread_id, time.time(), STATE_VERSION, question),
        )

    def exists(self, thread_id: str) -> bool:
        """Whether ``thread_id`` is in this database, however it was made."""
        query = "SELECT 1 FROM searchain_threads WHERE thread_id = ?"
        return bool(self._execute(query, (thread_id,))) or self._checkpointed_one(thread_id)

    has_checkpoints: str
    """A query whose one row's one value is true when LangGraph's ``checkpoints`` table exists."""

    def _checkpointed(self) -> set[str]:
        """Threads in LangGraph's checkpoints: the CLI's, and those made from Python."""
        if not self._execute(self.has_checkpoints)[0][0]:
            return set()
        rows = self._execute("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''")
        return {str(thread_id) for (thread_id,) in rows}

    def _checkpointed_one(self, thread_id: str) -> bool:
        """Whether LangGraph's checkpoints hold ``thread_id`` (one indexed look-up, not a scan)."""
        query = "SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' LIMIT 1"
        return bool(self._execute(self.has_checkpoints)[0][0]) and bool(
            self._execute(query, (thread_id,))
        )

    def known(self, thread_id: str) -> None:
        """One line for a thread this database does not hold or cannot read; else nothing."""
        rows = self._execute(
            "SELECT state_version FROM searchain_threads WHERE thread_id = ?", (thread_id,)
        )
        if rows and rows[0][0] != STATE_VERSION:
            raise ValueError(
                f"thread {thread_id!r} was written by a searchain with state version {rows[0][0]} "
                f"(this one reads {STATE_VERSION}); it is left untouched: start a new thread"
            )
        if not rows and not self._checkpointed_one(thread_id):
            raise SettingError(
                "no thread {thread!r} in {where}: see {threads}",
                settings=("threads",),
                thread=thread_id,
                where=self.where,
            )

    def threads(self) -> list[tuple[str, float | None, str]]:
        """``(thread_id, created, latest question)``, newest first, then those made from Python.

        The CLI never registered a thread made from Python: its ``created`` is ``None`` and its
        question is not recorded (its checkpoints hold both).
        """
        registered = [
            (str(t), float(c), str(q))
            for t, c, q in self._execute(
                "SELECT thread_id, created, question FROM searchain_threads ORDER BY created DESC"
            )
        ]
        seen = {thread_id for thread_id, _, _ in registered}
        others = sorted(self._checkpointed() - seen)
        return [*registered, *((thread_id, None, "") for thread_id in others)]


class SqliteThreadStore(ThreadStore):
    """Threads and checkpoints in one SQLite file."""

    has_checkpoints = "SELECT COUNT(*) FROM sqlite_master WHERE name = 'checkpoints'"

    def __init__(self, path: str | Path = DEFAULT_DB, *, create: bool = True) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        if not create and not self.path.is_file():
            raise SettingError(
                "no thread database at {path}: ask a question first, or pass the {db} your threads "
                "are in",
                settings=("db",),
                path=self.path,
            )
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise _another(self.path, "is read-only: make it writable or pass another {db}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Many processes may write threads to one file: wait for the write lock (WAL lets
            # readers go on meanwhile) rather than failing with "database is locked".
            self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=BUSY_SECONDS)
        except (OSError, sqlite3.Error) as exc:
            raise SettingError(
                "cannot open {path} ({exc}): pass a {db} in a writable directory",
                settings=("db",),
                path=self.path,
                exc=exc,
            ) from None
        tables = {row[0] for row in self._query("SELECT name FROM sqlite_master")}
        if tables and not ("searchain_threads" in tables or self._langgraph_checkpoints()):
            names = ", ".join(sorted(tables)[:5])
            raise _another(
                self.path,
                "is another program's SQLite database (tables: {names}): pass another {db}",
                names=names,
            )
        self._query("PRAGMA journal_mode=WAL")
        # Every checkpoint reaches the disk before the next step runs (a power cut loses no
        # committed step); WAL keeps that to one append per step.
        self._query("PRAGMA synchronous=FULL")
        self._create_table("REAL")

    def _langgraph_checkpoints(self) -> bool:
        """Whether the file's ``checkpoints`` table is LangGraph's.

        Another program may have one of its own, which LangGraph's saver fails on ("no such
        column: thread_id").
        """
        columns = {row[1] for row in self._query("PRAGMA table_info(checkpoints)")}
        return columns >= LANGGRAPH_CHECKPOINT_COLUMNS

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self.conn:
                return self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise _another(
                    self.path, "is locked by another process: wait for it or pass another {db}"
                ) from None
            if "readonly" in str(exc):
                raise _another(self.path, "is read-only: pass another {db}") from None
            raise ValueError(f"{self.path} is not a usable thread database ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{self.path} is not a SQLite database ({exc})") from None

    def checkpointer(self) -> Any:
        """A LangGraph SQLite checkpointer on the same file."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(self.conn, serde=checkpoint_serializer())
        try:
            saver.setup()
        except sqlite3.Error as exc:
            raise ValueError(f"{self.path} is not a usable thread database ({exc})") from None
        return saver

    def close(self) -> None:
        """Close the file."""
        self.conn.close()

    @property
    def _locks(self) -> Path:
        return self.path.with_name(self.path.name + ".locks")

    def busy(self, thread_id: str) -> bool:
        """Whether a run holds ``thread_id`` now (no lock folder: no run ever held one)."""
        return self._locks.is_dir() and super().busy(thread_id)

    @contextmanager
    def lock(self, thread_id: str) -> Iterator[None]:
        """An exclusive ``flock`` on a lock file per thread beside the database."""
        import fcntl

        folder = self._locks
        folder.mkdir(exist_ok=True)
        name = hashlib.sha256(thread_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        with (folder / name).open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise busy(thread_id) from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class PostgresThreadStore(ThreadStore):
    """Threads and checkpoints in a PostgreSQL database (``langgraph-checkpoint-postgres``)."""

    placeholder = "%s"
    has_checkpoints = "SELECT to_regclass('checkpoints') IS NOT NULL"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
            from psycopg.rows import dict_row
        except ImportError as exc:
            raise ImportError(POSTGRES_HINT) from exc
        self.where = redact_url(url)
        try:
            # The settings PostgresSaver requires: autocommit, dict rows, no prepared statements
            # (which break behind connection poolers such as PgBouncer).
            self.conn = psycopg.connect(
                url, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10
            )
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise SettingError(
                "cannot connect to PostgreSQL at {where} ({reason}): start the server, or pass "
                "another {db}",
                settings=("db",),
                where=self.where,
                reason=reason,
            ) from None
        self._create_table("DOUBLE PRECISION")

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg
        from psycopg.rows import tuple_row

        try:
            with self.conn.cursor(row_factory=tuple_row) as cursor:
                cursor.execute(sql, args)  # type: ignore[arg-type]  # our own constant SQL
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise ValueError(f"PostgreSQL at {self.where}: {reason}") from None

    def checkpointer(self) -> Any:
        """A LangGraph PostgreSQL checkpointer on the same connection."""
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
        except ImportError as exc:
            raise ImportError(POSTGRES_HINT) from exc
        saver = PostgresSaver(self.conn, serde=checkpoint_serializer())
        saver.setup()
        return saver

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextmanager
    def lock(self, thread_id: str) -> Iterator[None]:
        """A PostgreSQL session advisory lock on the thread.

        The server releases it when the connection ends, so a killed run frees the thread.
        """
        key = int.from_bytes(hashlib.sha256(thread_id.encode()).digest()[:8], "big", signed=True)
        [(held,)] = self._query("SELECT pg_try_advisory_lock(%s)", (key,))
        if not held:
            raise busy(thread_id)
        try:
            yield
        finally:
            self._query("SELECT pg_advisory_unlock(%s)", (key,))


def busy(thread_id: str) -> ValueError:
    """The one line for a thread another run holds."""
    return SettingError(
        "thread {name!r} is busy: another run is using it; wait for it to finish "
        "({threads} shows it), or pass another {thread}",
        settings=("threads", "thread"),
        name=thread_id,
    )


def _another(path: Path, problem: str, **facts: object) -> SettingError:
    """``path`` cannot serve as the thread database: ``problem`` names the fix as ``{db}``."""
    return SettingError("{path} " + problem, settings=("db",), path=path, **facts)


def open_store(db: str | Path = DEFAULT_DB, *, create: bool = True) -> ThreadStore:
    """The thread store for ``db``: a SQLite file path or a ``postgresql://`` URL.

    With ``create`` off (the read-only commands), a SQLite file that is not there is one clear
    line, not a new empty database.
    """
    target = str(db).strip()
    if not target:
        raise SettingError(
            "{db} is empty: pass a SQLite file path or a postgresql:// URL",
            settings=("db",),
        )
    scheme = urlsplit(target).scheme if "://" in target else ""
    if not scheme and target.lower().startswith(tuple(f"{s}:" for s in POSTGRES_SCHEMES)):
        raise SettingError(
            "{db} {url}: a PostgreSQL URL starts postgresql://",
            settings=("db",),
            url=redact_url(target),
        )
    if scheme in POSTGRES_SCHEMES:
        return PostgresThreadStore(target)
    if scheme:
        raise SettingError(
            "{db} {url}: {scheme}:// is not supported; pass a SQLite file path or a "
            "postgresql:// URL",
            settings=("db",),
            url=redact_url(target),
            scheme=scheme,
        )
    path = Path(target)
    if path.is_dir():
        raise SettingError(
            "{db} {path} is a directory: pass a SQLite file path inside it",
            settings=("db",),
            path=path,
        )
    return SqliteThreadStore(path, create=create)


@contextmanager
def open_checkpointer(db: str | Path = DEFAULT_DB) -> Iterator[Any]:
    """A checkpointer for ``db`` (SQLite path or ``postgresql://`` URL), closed on exit.

    The same databases the CLI's ``--db`` takes, with searchain's state types registered::

        with open_checkpointer("postgresql://user@host/db") as saver:
            graph = build_graph(checkpointer=saver)
    """
    store = open_store(db)
    try:
        yield store.checkpointer()
    finally:
        store.close()
