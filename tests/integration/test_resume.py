"""Checkpoint and resume through the real CLI, a real SQLite file and a real SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from searchain.threads import open_store
from tests.integration.test_cli import searchain
from tests.server import write_script

Q = "Lorenzo Monaco was influenced by which Italian painter and architect?"
SCRIPT = {
    "chains": [
        "[Unsolved Query]: Who influenced Lorenzo Monaco?",
        "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto\n"
        "[Final Content]: So the final answer is Giotto.",
    ],
    "trace": "Lorenzo Monaco was influenced by Giotto [1]. So the final answer is Giotto.",
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The demo index, and a reader that needs no PyTorch: a scripted model reading (each CLI
    process here loads its reader again, and importing PyTorch is most of a tiny DPR reader's
    seconds). The runs here stop, resume, pause and fail around the models' calls, whatever
    the reader; a reader of weights through the CLI is test_cli's and test_calibrate's."""
    root = tmp_path_factory.mktemp("resume")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    return root, f"llm:scripted:{write_script(root / 'reader.json')}"  # its reader: Giotto, 0.9


def script(root, name, hold_from=0):
    """A script logging its calls; with ``hold_from`` N, call N and later ones wait for
    ``release(path)`` — a run stopped then is certainly inside call N."""
    log = root / f"{name}.log"
    path = root / f"{name}.json"
    held = {"hold_from": hold_from, "release": str(release_file(path))} if hold_from else {}
    path.write_text(json.dumps({**SCRIPT, "log": str(log), **held}))
    return path, log


def release_file(path):
    return path.with_suffix(".release")


def ask_args(root, reader, script_path, db, *extra):
    return [
        "ask",
        Q,
        "--index",
        str(root / "index"),
        "--llm",
        f"scripted:{script_path}",
        "--reader",
        reader,
        "--db",
        str(db),
        "--json",
        *extra,
    ]


def calls(log):
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture(params=["sqlite", "postgres"])
def killed_db(request, setup):
    """Where the killed run checkpoints: a SQLite file, or a new PostgreSQL database."""
    if request.param == "postgres":
        return request.getfixturevalue("postgres_db")
    return str(setup[0] / "killed.sqlite")


def test_sigkill_then_resume_matches_an_uninterrupted_run(setup, killed_db):
    root, reader = setup
    tag = uuid.uuid4().hex[:6]
    plain_script, plain_log = script(root, f"plain-{tag}")
    plain_db = root / f"plain-{tag}.sqlite"
    done = searchain(*ask_args(root, reader, plain_script, plain_db, "--thread", "p"))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    assert [c["kind"] for c in calls(plain_log)] == ["chain", "chain", "trace"]

    slow_script, slow_log = script(root, f"slow-{tag}", hold_from=2)  # round 2's chain waits
    db = killed_db
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "searchain",
            *ask_args(root, reader, slow_script, db, "--thread", "k"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = open_store(db)
    graph_state = None
    deadline = time.monotonic() + 300
    from searchain.graph.searchain import build_graph

    graph = build_graph(checkpointer=store.checkpointer())
    while time.monotonic() < deadline:  # wait until round 1 (and its completion) is checkpointed
        graph_state = graph.get_state({"configurable": {"thread_id": "k"}})
        if graph_state.values.get("rounds") == 1 and graph_state.next == ("generate_coq",):
            break
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert graph_state.next == ("generate_coq",)
    release_file(slow_script).touch()

    resumed = searchain("resume", "k", "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    for key in ("answer", "final_content", "references", "nodes", "rounds", "stop_reason", "tree"):
        assert result[key] == expected[key], key
    kinds = [(c["kind"], c["index"]) for c in calls(slow_log)]
    assert kinds.count(("chain", 0)) == 1  # round 1's LLM call was not repeated
    assert kinds.count(("trace", 0)) == 1 and kinds[-1] == ("trace", 0)

    listed = searchain("threads", "--db", str(db))
    assert "k" in listed.stdout and "finished" in listed.stdout


def test_resume_errors_leave_everything_as_it_was(setup, tmp_path):
    root, reader = setup
    path, _ = script(root, "errors")
    db = tmp_path / "t.sqlite"
    assert searchain(*ask_args(root, reader, path, db, "--thread", "done")).returncode == 0

    def one_line(done, fragment):
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], done.stderr

    one_line(searchain("resume", "nope", "--db", str(db)), "no thread 'nope'")
    one_line(searchain("resume", "done", "--db", str(db)), "already finished")
    one_line(searchain("resume", "done", "--db", str(db), "--approve"), "already finished")

    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
        conn.execute("UPDATE searchain_threads SET state_version = 999")
    one_line(searchain("resume", "done", "--db", str(db)), "state version 999")
    one_line(searchain(*ask_args(root, reader, path, db, "--thread", "done")), "state version 999")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == before

    locker = sqlite3.connect(db)
    locker.execute("BEGIN EXCLUSIVE")
    try:  # the CLI, waiting one second for the lock rather than a user's BUSY_SECONDS
        patience = "import searchain.threads as t; t.BUSY_SECONDS = 1.0; import searchain.__main__"
        waited = subprocess.run(
            [sys.executable, "-c", patience, *ask_args(root, reader, path, db)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        one_line(waited, "locked by another process")
    finally:
        locker.rollback()
        locker.close()

    os.chmod(db, 0o444)
    try:
        if not os.access(db, os.W_OK):  # root may write read-only files: nothing to test then
            one_line(searchain("threads", "--db", str(db)), "read-only")
    finally:
        os.chmod(db, 0o644)


def test_approval_through_the_cli(setup, tmp_path):
    root, reader = setup
    path = tmp_path / "approve.json"
    question = "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: {}"
    path.write_text(
        json.dumps(
            {
                "chains": [question.format("Zeus"), question.format("Giotto")],
                "trace": "So the final answer is Giotto [1].",
            }
        )
    )
    db = tmp_path / "a.sqlite"
    # The reader is sure (0.9 against θ 0.5) of the passage's "Giotto", which is not "Zeus".
    args = ask_args(
        root, reader, path, db, "--thread", "ap", "--theta", "0.5", "--approve-corrections"
    )
    first = searchain(*args)
    assert first.returncode == 0, first.stderr
    waiting = json.loads(first.stdout)
    [action] = waiting["waiting_for"]["action_requests"]  # LangChain's human-in-the-loop shape
    assert waiting["thread"] == "ap" and action["args"]["model_answer"] == "Zeus"
    title, _, text = action["args"]["passage"].partition(": ")
    assert "waiting for approval" in searchain("threads", "--db", str(db)).stdout
    undecided = searchain("resume", "ap", "--db", str(db))
    assert undecided.returncode == 1 and "--approve or --reject" in undecided.stderr
    # Issue 33, cases 6 and 10: the pause named a passage id only, and a waiting thread was a
    # dead end (show sent to resume, which wanted a decision before anything could be seen).
    assert "see it and its passage with `searchain show ap`" in undecided.stderr
    shown = searchain("show", "ap", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "Correction waiting for approval on Who influenced Lorenzo Monaco?" in shown.stdout
    assert title and text[:40] in shown.stdout and "Tree-of-Reasoning" in shown.stdout
    both = searchain("resume", "ap", "--db", str(db), "--approve", "--reject")
    assert both.returncode == 1 and "not both" in both.stderr
    plain = searchain(*[a for a in args if a != "--json"][:-5], "--thread", "ap2", "--theta",
                      "0.5", "--approve-corrections")  # fmt: skip
    assert plain.returncode == 0, plain.stderr
    assert "Correction waiting for approval" in plain.stdout  # not an empty stdout
    assert text[:40] in plain.stdout and "resume ap2 --approve" in plain.stdout
    done = searchain("resume", "ap", "--db", str(db), "--reject", "--json")
    assert done.returncode == 0, done.stderr
    node = json.loads(done.stdout)["nodes"][0]
    assert node["source"] == "llm" and node["answer"] == "Zeus"
    assert node["rejected"] == action["args"]["answer"]


@pytest.mark.parametrize("attempt", [1, 2])
@pytest.mark.parametrize("calls", [1, 2, 3])
def test_ctrl_c_stops_the_run_at_once_and_resume_finishes(setup, tmp_path, calls, attempt):
    """SIGINT while the run is inside its first, second or third LLM call (round 1, round 2,
    Trace), each twice: exit 130 at once with the resume hint, and the resumed run finishes."""
    root, reader = setup
    # Call `calls` waits for its release: the signal, sent once it is logged, lands inside it.
    path, log = script(tmp_path, f"ctrlc-{calls}-{attempt}", hold_from=calls)
    db = tmp_path / "c.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "searchain", *ask_args(root, reader, path, db, "--thread", "c")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not (log.exists() and len(log.read_text().splitlines()) >= calls):
        assert proc.poll() is None, proc.communicate()  # the run is inside call number `calls`
        assert time.monotonic() < deadline, "the run never reached that call"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted: continue with `searchain resume c`" in stderr
    release_file(path).touch()
    resumed = searchain("resume", "c", "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["answer"] == "Giotto"


def test_a_thread_made_from_python_is_listed_and_shown_by_the_cli(setup, tmp_path):
    """Issue 33, case 1: a thread built with open_checkpointer (docs/conversations.md: "the same
    targets as --db") answered, then `searchain threads` listed nothing and `searchain show`
    said there was no such thread."""
    from searchain.context import Context
    from searchain.graph.searchain import build_graph
    from searchain.threads import open_checkpointer
    from searchain.tools.llms.scripted import ScriptedChatModel
    from tests.conftest import TableReader

    root, _ = setup
    db = tmp_path / "py.sqlite"
    llm = ScriptedChatModel(**SCRIPT)
    context = Context(llm=llm, index=str(root / "index"), reader=TableReader({}))
    with open_checkpointer(db) as saver:
        graph = build_graph(checkpointer=saver)
        config = {"configurable": {"thread_id": "pythread"}}
        out = graph.invoke({"question": Q}, config, context=context)
    assert out["answer"] == "Giotto"
    listed = searchain("threads", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()
    assert line.startswith("pythread ") and "finished" in line and Q in line
    shown = searchain("show", "pythread", "--db", str(db), "--json")
    assert shown.returncode == 0, shown.stderr
    (question,) = json.loads(shown.stdout)["questions"]
    assert question["answer"] == "Giotto" and question["references"][0]["title"]
    # Resuming needs the models it ran with: the checkpoint names them, and objects (this
    # thread's scripted model and reader) only its Python code has: one line naming the first.
    resumed = searchain("resume", "pythread", "--db", str(db))
    assert resumed.returncode == 1
    assert "started with a ScriptedChatModel object as 'llm'" in resumed.stderr


def test_read_only_commands_never_create_a_database(tmp_path):
    """Issue 33, case 11: `threads --db typo.sqlite` created the file and exited 0; `show
    nosuch` created .searchain/threads.sqlite."""
    typo = searchain("threads", "--db", str(tmp_path / "typo.sqlite"), cwd=tmp_path)
    assert typo.returncode == 1 and "no thread database at" in typo.stderr
    shown = searchain("show", "nosuch", cwd=tmp_path)
    assert shown.returncode == 1 and "no thread database at .searchain/threads.sqlite" in (
        shown.stderr
    )
    assert list(tmp_path.iterdir()) == []
