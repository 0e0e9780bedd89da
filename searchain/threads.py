"""Conversation threads on disk: a SQLite checkpointer plus what each thread was asked with.

The checkpointer stores the graph's state after every step; this store adds, per thread, the
options the run used (so ``searchain resume`` rebuilds the same models and index) and the state
version (so a checkpoint written by an incompatible searchain is refused, not misread).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from searchain.state import STATE_VERSION, checkpoint_serializer

DEFAULT_DB = ".searchain/threads.sqlite"


class ThreadStore:
    """Threads and checkpoints in one SQLite file."""

    def __init__(self, path: str | Path = DEFAULT_DB) -> None:
        self.path = Path(path)
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise ValueError(f"{self.path} is read-only: make it writable or pass another --db")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=2.0)
        self._execute(
            "CREATE TABLE IF NOT EXISTS searchain_threads (thread_id TEXT PRIMARY KEY, "
            "created REAL, state_version INTEGER, options TEXT, question TEXT)"
        )

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self.conn:
                return self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise ValueError(
                    f"{self.path} is locked by another process: wait for it or pass another --db"
                ) from None
            if "readonly" in str(exc):
                raise ValueError(f"{self.path} is read-only: pass another --db") from None
            raise ValueError(f"{self.path} is not a usable thread database ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{self.path} is not a SQLite database ({exc})") from None

    def checkpointer(self) -> Any:
        """A LangGraph SQLite checkpointer on the same file."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(self.conn, serde=checkpoint_serializer())
        saver.setup()
        return saver

    def record(self, thread_id: str, options: dict[str, Any], question: str) -> None:
        """Remember a thread's options (first question) or its latest question."""
        self._execute(
            "INSERT INTO searchain_threads VALUES (?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO "
            "UPDATE SET question = excluded.question",
            (thread_id, time.time(), STATE_VERSION, json.dumps(options), question),
        )

    def exists(self, thread_id: str) -> bool:
        """Whether ``thread_id`` has been asked anything in this store."""
        query = "SELECT 1 FROM searchain_threads WHERE thread_id = ?"
        return bool(self._execute(query, (thread_id,)))

    def options(self, thread_id: str) -> dict[str, Any]:
        """The options a thread was started with; one-line errors for unknown or stale threads."""
        rows = self._execute(
            "SELECT state_version, options FROM searchain_threads WHERE thread_id = ?", (thread_id,)
        )
        if not rows:
            raise ValueError(f"no thread {thread_id!r} in {self.path}: see `searchain threads`")
        version, options = rows[0]
        if version != STATE_VERSION:
            raise ValueError(
                f"thread {thread_id!r} was written by a searchain with state version {version} "
                f"(this one reads {STATE_VERSION}); it is left untouched: start a new thread"
            )
        return json.loads(options)

    def threads(self) -> list[tuple[str, float, str]]:
        """``(thread_id, created, latest question)``, newest first."""
        return [
            (str(t), float(c), str(q))
            for t, c, q in self._execute(
                "SELECT thread_id, created, question FROM searchain_threads ORDER BY created DESC"
            )
        ]
