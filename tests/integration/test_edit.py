"""`searchain edit` through the real CLI on SQLite and PostgreSQL: a person's answer for a step,
the re-planned run SIGKILLed after the edit is checkpointed, then resumed to the same result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from searchain.graph.searchain import build_graph
from searchain.threads import open_store
from tests.integration.test_cli import searchain

Q = "Lorenzo Monaco was influenced by which Italian painter and architect?"
SCRIPT = {
    "chains": [
        "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto",
        "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Cimabue\n"
        "[Final Content]: So the final answer is Cimabue.",
    ],
    "trace": "He was influenced by Cimabue [1]. So the final answer is Cimabue.",
    "reader": "Answer: Giotto\nConfidence: 0.9",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("edit")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    return root


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, index):
    if request.param == "postgres":
        return request.getfixturevalue("postgres_db")
    return str(index / f"edit-{uuid.uuid4().hex[:6]}.sqlite")


def asked(root, db, thread, script):
    done = searchain(
        *("ask", Q, "--index", str(root / "index"), "--llm", f"scripted:{script}"),
        *("--reader", "llm", "--db", db, "--thread", thread, "--json"),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_edit_then_kill_then_resume_gives_the_uninterrupted_edit(index, db, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    first = asked(index, db, "plain", script)
    assert first["nodes"][0]["source"] == "llm" and first["rounds"] == 1
    plain = searchain("edit", "plain", "0", "--answer", "Cimabue", "--db", db, "--json")
    assert plain.returncode == 0, plain.stderr
    expected = json.loads(plain.stdout)
    edited = expected["nodes"][0]
    assert (edited["source"], edited["answer"], edited["step"]) == ("edited", "Cimabue", 1)
    assert edited["support"] == "unstated"  # the Lorenzo Monaco passage names Giotto
    assert edited["llm_answer"] == "Giotto" and expected["rounds"] == 2
    assert expected["tree"][1]["root"] == 0 and expected["answer"] == "Cimabue"

    asked(index, db, "killed", script)
    # The thread's own model now holds its calls until `release` exists: the edited run is
    # certainly killed after the edit is checkpointed and before its next round is.
    release = tmp_path / "release"
    held = {"log": str(tmp_path / "calls.log"), "hold_from": 1, "release": str(release)}
    script.write_text(json.dumps({**SCRIPT, **held}))
    command = ["edit", "killed", "0", "--answer", "Cimabue", "--db", db, "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "searchain", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    graph = build_graph(checkpointer=open_store(db).checkpointer())
    config = {"configurable": {"thread_id": "killed"}}
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # until the edit itself is checkpointed
        state = graph.get_state(config)
        nodes = state.values.get("nodes", [])
        if nodes and nodes[0].source == "edited" and state.next == ("generate_coq",):
            break
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    release.touch()
    resumed = searchain("resume", "killed", "--db", db, "--json")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    for key in ("answer", "final_content", "references", "nodes", "rounds", "stop_reason", "tree"):
        assert result[key] == expected[key], key


def test_bad_edits_are_one_line_and_change_nothing(index, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    db = str(tmp_path / "t.sqlite")
    before = asked(index, db, "t", script)

    def one_line(done, fragment):
        assert done.returncode == 1 and done.stdout == "", done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], done.stderr

    one_line(
        searchain("edit", "t", "9", "--answer", "x", "--db", db),
        "node 9 is not a step of the reasoning path: edit 0",
    )
    one_line(searchain("edit", "t", "0", "--answer", " ", "--db", db), "the edited answer is empty")
    one_line(searchain("edit", "nope", "0", "--answer", "x", "--db", db), "no thread 'nope'")
    shown = searchain("show", "t", "--db", db, "--json")
    assert json.loads(shown.stdout)["questions"][0]["nodes"] == before["nodes"]
