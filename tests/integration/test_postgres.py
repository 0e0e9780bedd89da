"""PostgreSQL threads against a real server (.ci/run starts one; scripts/postgres.sh here)."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.threads import open_checkpointer
from tests.conftest import ScriptedReplies, TableReader, TableRetriever
from tests.integration.test_cli import searchain

Q = "Lorenzo Monaco was influenced by which Italian painter and architect?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("pg")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    script = root / "script.json"
    script.write_text(
        json.dumps(
            {
                "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
                "trace": "He was influenced by Giotto [1]. So the final answer is Giotto.",
                "reader": "Answer: Giotto\nConfidence: 0.9",
            }
        )
    )
    return root, script


def ask(root, script, *extra, env=None):
    return searchain(
        "ask",
        Q,
        "--index",
        str(root / "index"),
        "--llm",
        f"scripted:{script}",
        "--reader",
        "llm",
        "--json",
        *extra,
        env=env,
        cwd=root,
    )


def test_cli_threads_live_in_postgres(demo, postgres_db):
    root, script = demo
    before = set(os.listdir(root))
    first = ask(root, script, "--db", postgres_db, "--thread", "pg1")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["answer"] == "Giotto"
    # SEARCHAIN_DB names the same database: a follow-up on the thread sees the first turn.
    env = {**os.environ, "SEARCHAIN_DB": postgres_db}
    follow = ask(root, script, "--thread", "pg1", env=env)
    assert follow.returncode == 0, follow.stderr
    listed = searchain("threads", env=env, cwd=root)
    assert listed.returncode == 0, listed.stderr
    assert "pg1" in listed.stdout and "finished" in listed.stdout
    assert set(os.listdir(root)) == before  # no SQLite file named after the URL

    with open_checkpointer(postgres_db) as saver:  # a new connection reads it back
        state = build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": "pg1"}})
    assert [turn.question for turn in state.values["history"]] == [Q]
    assert state.values["answer"] == "Giotto" and not state.next


@pytest.mark.parametrize(
    ("target", "fragment"),
    [
        ("mysql://user@127.0.0.1/db", "mysql:// is not supported"),
        ("postgresql:/user@127.0.0.1:5432/db", "a PostgreSQL URL starts postgresql://"),
        ("postgresql://user:secret@127.0.0.1:1/db", "cannot connect to PostgreSQL"),
        (".", "is a directory"),
    ],
)
def test_bad_db_targets_fail_in_one_line_and_create_nothing(demo, target, fragment):
    root, script = demo
    before = set(os.listdir(root))
    for done in (ask(root, script, "--db", target), searchain("threads", "--db", target, cwd=root)):
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], done.stderr
        assert "secret" not in done.stderr
    assert set(os.listdir(root)) == before


def test_graph_checkpoints_in_postgres_from_python(passages, postgres_db):
    question = "Where was Kevin Drew born?"
    llm = ScriptedReplies(
        replies=[
            f"[Query 1]: {question}\n[Answer 1]: Toronto",
            "Toronto [1]. So the final answer is Toronto.",
        ]
    )
    context = Context(
        llm=llm,
        retriever=TableRetriever({question: passages["drew"]}),
        reader=TableReader({"p2": ("Toronto", 3.0)}),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    with open_checkpointer(postgres_db) as saver:
        build_graph(checkpointer=saver).invoke({"question": question}, config, context=context)
    with open_checkpointer(postgres_db) as saver:
        state = build_graph(checkpointer=saver).get_state(config)
    assert state.values["answer"] == "Toronto" and not state.next
    assert state.values["nodes"][0].passage.id == "p2"  # searchain's types round-trip


def test_a_server_left_dead_by_a_killed_run_is_started_again(postgres_server):
    """A session or CI run killed before its stop leaves the state files of a server that is gone
    (CI once got such a URL and every PostgreSQL test failed with 'connection refused')."""
    import shutil
    import signal
    import subprocess
    from pathlib import Path

    import psycopg

    from tests.conftest import ROOT

    script = str(ROOT / "scripts" / "postgres.sh")
    # Under /tmp itself: as root the server runs as `postgres`, who cannot enter pytest's tmp_path.
    base = Path("/tmp") / f"searchain-pg-test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PG_BASE": str(base)}

    def run(verb):
        return subprocess.run([script, verb], env=env, capture_output=True, text=True, timeout=300)

    above = base.parent.stat().st_mode  # /tmp's 1777: once made 755 by the start, which
    first = run("start")  # closed /tmp to every other user (Elasticsearch could not start)
    assert first.returncode == 0, first.stderr
    assert base.parent.stat().st_mode == above
    pid = int((base / "current" / "data" / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)  # the postmaster only, as a killed session leaves it
    try:
        assert run("url").returncode != 0  # gone, so not reported as running
        again = run("start")
        assert again.returncode == 0, again.stderr
        url = again.stdout.strip()
        with psycopg.connect(url, connect_timeout=30) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert run("url").stdout.strip() == url
    finally:
        run("stop")
        stopped = not (base / "current").exists()
        shutil.rmtree(base, ignore_errors=True)
    assert stopped
