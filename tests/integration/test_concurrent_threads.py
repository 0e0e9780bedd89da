"""Threads are transactions: concurrent runs never merge silently, many threads share one file.

Real processes on a real SQLite file and a real PostgreSQL server; no clock decides anything
(a run is "in progress" once its first LLM call is logged).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

from searchain.graph.searchain import build_graph
from searchain.threads import open_store
from tests.integration.test_cli import searchain

Q = "Who influenced Lorenzo Monaco?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("concurrent")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    return root


def script(root, name, **extra):
    path = root / f"{name}.json"
    body = {
        "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
        "trace": "Giotto [1]. So the final answer is Giotto.",
        "reader": "Answer: Giotto\nConfidence: 0.9",
        **extra,
    }
    path.write_text(json.dumps(body))
    return path


def ask_args(root, script_path, db, thread, question=Q):
    return [
        "ask",
        question,
        "--index",
        str(root / "index"),
        "--llm",
        f"scripted:{script_path}",
        "--reader",
        "llm",
        "--db",
        str(db),
        "--thread",
        thread,
        "--json",
    ]


def turns(db, thread):
    """The questions a thread holds: its earlier turns and its current one."""
    store = open_store(str(db))
    try:
        values = (
            build_graph(checkpointer=store.checkpointer())
            .get_state({"configurable": {"thread_id": thread}})
            .values
        )
    finally:
        store.close()
    return [t.question for t in values.get("history", [])] + [values["question"]]


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, demo, tmp_path):
    if request.param == "postgres":
        return request.getfixturevalue("postgres_db")
    return str(tmp_path / "threads.sqlite")


def test_a_second_run_on_a_busy_thread_is_refused_and_nothing_is_lost(demo, db, tmp_path):
    # The first run waits inside its first LLM call until the test opens the gate: it is
    # certainly still running while the second one is tried, however slow the machine.
    gate = tmp_path / "gate"
    slow = script(tmp_path, "slow", barrier=2, barrier_dir=str(gate))
    first = subprocess.Popen(
        [sys.executable, "-m", "searchain", *ask_args(demo, slow, db, "shared")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not (gate.is_dir() and any(gate.iterdir())):  # the first run is inside its LLM call
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "the first run never called its LLM"
        time.sleep(0.05)
    listed = searchain("threads", "--db", str(db))
    assert "running" in listed.stdout, listed.stdout
    second = searchain(*ask_args(demo, script(tmp_path, "fast"), db, "shared", "A second one?"))
    assert second.returncode == 1
    [line] = second.stderr.strip().splitlines()
    assert "thread 'shared' is busy" in line
    (gate / "open").touch()  # let the first run go on
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert turns(db, "shared") == [Q]
    follow = searchain(*ask_args(demo, script(tmp_path, "fast"), db, "shared", "And then?"))
    assert follow.returncode == 0, follow.stderr
    assert turns(db, "shared") == [Q, "And then?"]  # both turns, in order


WORKER = textwrap.dedent(
    """
    import sys
    from searchain.cli.app import app

    index, script, db, worker = sys.argv[1:]
    for n in range(5):
        try:
            app(
                ["ask", f"Question {n} of worker {worker}?", "--index", index, "--llm",
                 f"scripted:{script}", "--reader", "llm", "--db", db, "--thread",
                 f"w{worker}", "--json"],
                standalone_mode=False,
            )
        except SystemExit as exit:
            if exit.code:
                raise
    """
)


def test_eight_processes_five_questions_each_on_one_sqlite_file(demo, tmp_path):
    db = tmp_path / "many.sqlite"
    fast = script(tmp_path, "fast")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(demo / "index"), str(fast), str(db), str(i)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=900)
        assert worker.returncode == 0, err[-3000:]
    for i in range(8):
        assert turns(db, f"w{i}") == [f"Question {n} of worker {i}?" for n in range(5)]
    listed = searchain("threads", "--db", str(db))
    assert listed.stdout.count("finished") == 8


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        ("foreign", "another program's SQLite database"),
        ("foreign-checkpoints", "another program's SQLite database"),
        ("under-a-file", "cannot open"),
        ("garbage", "not a SQLite database"),
    ],
)
def test_unusable_db_files_fail_in_one_line(demo, tmp_path, make, fragment):
    import sqlite3

    if make == "foreign":
        target = tmp_path / "other.db"
        with sqlite3.connect(target) as conn:
            conn.execute("CREATE TABLE invoices (id INTEGER)")
    elif make == "foreign-checkpoints":  # its own table of that name, not LangGraph's
        target = tmp_path / "game.db"
        with sqlite3.connect(target) as conn:
            conn.execute("CREATE TABLE checkpoints (level INTEGER, x REAL, y REAL)")
    elif make == "under-a-file":  # a directory that cannot be made (even by root)
        (tmp_path / "a-file").write_text("x")
        target = tmp_path / "a-file" / "t.sqlite"
    else:
        target = tmp_path / "garbage.sqlite"
        target.write_bytes(b"not a database at all" * 100)
    # `ask` opens the database to write (`threads`, read-only, says a missing one is missing).
    done = searchain(*ask_args(demo, script(tmp_path, "fast"), target, "t", "Who?"))
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert fragment in line
    if make != "under-a-file":
        listed = searchain("threads", "--db", str(target))
        assert listed.returncode == 1 and fragment in listed.stderr
