"""The self-hosted server (scripts/server.sh: Aegra, 2 workers, PostgreSQL, Redis), from outside.

Driven by the real langgraph-sdk client, raw HTTP, RemoteGraph and the official MCP client.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from searchain.server.keys import digest
from tests.conftest import ROOT, require_module
from tests.server import KEYS, QUESTION, SERVER

pytestmark = pytest.mark.integration


def status_of(call) -> int:
    """The HTTP status an sdk call fails with (0 when it does not fail)."""
    import httpx

    try:
        call()
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code
    return 0


def test_no_key_or_a_wrong_key_is_401(deployment):
    import httpx

    for headers in ({}, {"x-api-key": "sk-not-a-key-of-anyone-0000"}, {"authorization": "Basic x"}):
        for method, path in (
            ("POST", "/threads/search"),
            ("POST", "/assistants/search"),
            ("POST", "/threads"),
            ("POST", "/mcp"),
        ):
            response = httpx.request(
                method, deployment.url + path, json={}, headers=headers, timeout=60
            )
            assert response.status_code == 401, (headers, path, response.text)
            assert "key" in response.json()["message"].lower()
    bearer = {"authorization": f"Bearer {KEYS['alice']}"}
    response = httpx.post(deployment.url + "/threads/search", json={}, headers=bearer)
    assert response.status_code == 200
    # The health endpoint stays open, for load balancers.
    assert httpx.get(deployment.url + "/health", timeout=60).json()["status"] == "healthy"


def test_another_users_thread_and_assistant_are_404_everywhere(deployment):
    import httpx

    alice, bob = deployment.client("alice"), deployment.client("bob")
    thread = alice.threads.create()["thread_id"]
    out = alice.runs.wait(thread, "searchain", input={"question": QUESTION})
    assert out["answer"] == "Giotto"
    calls = {
        "get": lambda: bob.threads.get(thread),
        "get_state": lambda: bob.threads.get_state(thread),
        "get_history": lambda: bob.threads.get_history(thread),
        "update_state": lambda: bob.threads.update_state(thread, {"question": "x"}),
        "run": lambda: bob.runs.wait(thread, "searchain", input={"question": "Mine now?"}),
        "background run": lambda: bob.runs.create(thread, "searchain", input={"question": "x"}),
        "stream": lambda: list(bob.runs.stream(thread, "searchain", input={"question": "x"})),
        "resume": lambda: bob.runs.wait(thread, "searchain", command={"resume": True}),
        "delete": lambda: bob.threads.delete(thread),
    }
    for name, call in calls.items():
        assert status_of(call) == 404, name
    headers = {"x-api-key": KEYS["bob"]}
    for method, path, body in (
        ("GET", f"/threads/{thread}", None),
        ("GET", f"/threads/{thread}/state", None),
        ("POST", f"/threads/{thread}/history", {}),
        ("POST", f"/threads/{thread}/runs/wait", {"assistant_id": "searchain", "input": {}}),
        ("POST", f"/threads/{thread}/runs/stream", {"assistant_id": "searchain", "input": {}}),
        ("DELETE", f"/threads/{thread}", None),
    ):
        response = httpx.request(
            method, deployment.url + path, json=body, headers=headers, timeout=60
        )
        assert response.status_code == 404, (method, path, response.text)
    assert thread not in {t["thread_id"] for t in bob.threads.search(limit=1000)}
    # Alice's thread is whole, and hers alone.
    assert alice.threads.get_state(thread)["values"]["answer"] == "Giotto"
    assert [r["status"] for r in alice.runs.list(thread)] == ["success"]
    assert bob.runs.list(thread) == []
    # Assistants too: Bob can neither read nor run Alice's.
    mine = alice.assistants.create("searchain", context={"r_max": 2}, name="alice's")
    assert status_of(lambda: bob.assistants.get(mine["assistant_id"])) == 404
    assert status_of(lambda: bob.runs.wait(None, mine["assistant_id"], input={"question": "x"}))
    assert mine["assistant_id"] not in {a["assistant_id"] for a in bob.assistants.search()}


def test_a_follow_up_on_the_thread_keeps_its_history(deployment):
    alice = deployment.client("alice")
    # The graphs' shared default assistants say what they do (from aegra.json).
    shared = {
        a["assistant_id"]: a for a in alice.assistants.search(metadata={"created_by": "system"})
    }
    described = {a["graph_id"]: a["description"] for a in shared.values()}
    assert described["searchain"].startswith("SearChain: plans a chain of sub-questions")
    assert described["ircot"].startswith("IRCoT: interleaves retrieval")
    thread = alice.threads.create()["thread_id"]
    alice.runs.wait(thread, "searchain", input={"question": QUESTION})
    out = alice.runs.wait(thread, "searchain", input={"question": "And who did Giotto teach?"})
    assert out["answer"] == "Giotto"
    values = alice.threads.get_state(thread)["values"]
    assert [t["question"] for t in values["history"]] == [QUESTION]
    assert values["question"] == "And who did Giotto teach?"


def test_eight_users_five_questions_each_at_once(deployment):
    barrier = deployment.work / "barrier-load"  # of the deployment's model `load`
    users = [f"user{i}" for i in range(8)]

    def ask_five(user: str) -> str:
        client = deployment.client(user)
        thread = client.threads.create()["thread_id"]
        for n in range(5):
            out = client.runs.wait(
                thread,
                "searchain",
                input={"question": f"Question {n} of {user}?"},
                context={"llm": "load"},
            )
            assert out["answer"] == "Giotto", out
        return thread

    with ThreadPoolExecutor(len(users)) as pool:
        threads = dict(zip(users, pool.map(ask_five, users), strict=True))
    # All eight first questions ran side by side (the barrier let none through until 8 had begun).
    assert sum(1 for _ in barrier.iterdir()) >= 8
    for user, thread in threads.items():
        client = deployment.client(user)
        values = client.threads.get_state(thread)["values"]
        asked = [t["question"] for t in values["history"]] + [values["question"]]
        assert asked == [f"Question {n} of {user}?" for n in range(5)]
        runs = client.runs.list(thread)
        assert len(runs) == 5 and {r["status"] for r in runs} == {"success"}
        assert client.threads.get(thread)["status"] == "idle"


def wait_for(predicate, what: str, timeout: float = 300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def test_a_worker_killed_mid_run_leaves_no_thread_stuck(deployment):
    alice = deployment.client("alice")
    barrier = deployment.work / "barrier-kill"  # of the deployment's model `kill`
    # The first attempt waits at the barrier (2 first calls), so it is mid-run when killed; the
    # attempt after the kill is the second first call, which lets both through.
    thread = alice.threads.create()["thread_id"]
    run = alice.runs.create(
        thread, "searchain", input={"question": QUESTION}, context={"llm": "kill"}
    )
    [marker] = wait_for(lambda: [m for m in barrier.iterdir() if m.read_text()], "the LLM call")
    os.kill(int(marker.read_text()), signal.SIGKILL)  # the worker process running the run

    def finished():
        import httpx

        try:
            found = alice.runs.get(thread, run["run_id"])
        except httpx.TransportError:  # a kept-alive connection to the killed worker: ask again
            return None
        return found if found["status"] not in ("pending", "running") else None

    final = wait_for(finished, "the killed run to be retried or failed")
    # Its lease ran out, another worker took it up again and finished it: retried, not lost.
    assert final["status"] == "success", final
    alice = deployment.client("alice")  # no pooled connection to the dead worker
    pids = {m.read_text() for m in barrier.iterdir()}
    assert len(pids) == 2 and marker.read_text() in pids  # two attempts, in two processes
    assert alice.threads.get(thread)["status"] == "idle"
    # The thread answers again: nothing is stuck busy, and the question is in it once.
    out = alice.runs.wait(thread, "searchain", input={"question": "And who did Giotto teach?"})
    assert out["answer"] == "Giotto"
    values = alice.threads.get_state(thread)["values"]
    assert [t["question"] for t in values["history"]] == [QUESTION]


def mcp_session(url: str, headers: dict[str, str], work):
    """Run ``work(client)`` with the official MCP client connected to ``url``/mcp."""
    import asyncio

    require_module("mcp", "studio")
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers=headers, timeout=300) as http:
            transport = streamable_http_client(f"{url}/mcp", http_client=http)
            async with Client(transport) as client:
                return await work(client)

    return asyncio.run(main())


def test_mcp_clients_get_the_cited_answer(deployment):
    async def work(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        answer = await client.call_tool("searchain", {"question": QUESTION})
        blank = await client.call_tool("searchain", {"question": "  "})
        bad_task = await client.call_tool("ircot", {"question": QUESTION, "task": "poetry"})
        return tools, answer, blank, bad_task

    tools, answer, blank, bad_task = mcp_session(deployment.url, {"x-api-key": KEYS["alice"]}, work)
    assert set(tools) == {"searchain", "ircot"}
    assert "citations" in tools["searchain"].description
    assert "task" in tools["searchain"].description
    assert tools["searchain"].input_schema["required"] == ["question"]
    assert not answer.is_error
    text = answer.content[0].text
    assert text.startswith("Answer: Giotto\n")
    assert "He was influenced by Giotto [1]." in text
    assert "References:\n[1] Lorenzo Monaco: Lorenzo Monaco (born Piero di Giovanni" in text
    assert "__error__" not in text and "TreeNode" not in text  # the answer, not the state
    structured = answer.structured_content
    assert structured["answer"] == "Giotto"
    [ref] = structured["references"]
    assert (ref["n"], ref["title"], ref["support"]) == (1, "Lorenzo Monaco", "stated")
    # Failures come back as their one-line message.
    assert blank.is_error and "question is blank" in blank.content[0].text
    assert bad_task.is_error
    [line] = bad_task.content[0].text.splitlines()
    assert "unknown task 'poetry'" in line


def test_remote_graph_inside_a_parent_graph_runs_with_its_assistants_context(deployment):
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.pregel.remote import RemoteGraph

    alice = deployment.client("alice")
    # A deployment configured for RemoteGraph: an assistant whose context holds the settings
    # (the parent graph's own context does not reach a remote run). Its model, one the
    # deployment offers, answers Cimabue, not the server default's Giotto: the answer proves the
    # assistant's context was used.
    assistant = alice.assistants.create(
        "searchain", context={"llm": "cimabue", "r_max": 2}, name="remote-searchain"
    )

    class Parent(TypedDict, total=False):
        question: str
        answer: str
        checked: bool

    remote = RemoteGraph(assistant["assistant_id"], url=deployment.url, api_key=KEYS["alice"])
    parent = StateGraph(Parent)
    parent.add_node("searchain", remote)
    parent.add_node("check", lambda state: {"checked": bool(state["answer"])})
    parent.add_edge(START, "searchain")
    parent.add_edge("searchain", "check")
    parent.add_edge("check", END)
    out = parent.compile().invoke({"question": QUESTION})
    assert out == {"question": QUESTION, "answer": "Cimabue", "checked": True}
    # Without a key the remote run is refused, not run as somebody else.
    anonymous = RemoteGraph(assistant["assistant_id"], url=deployment.url, api_key=None)
    assert status_of(lambda: anonymous.invoke({"question": QUESTION})) == 401


def test_keys_are_added_and_revoked_by_editing_the_file_without_a_restart(deployment):
    import httpx

    keys = Path(deployment.env["SEARCHAIN_API_KEYS_FILE"])
    original = keys.read_text()
    carol = "sk-test-carol-" + "c" * 32
    search = deployment.url + "/threads/search"
    try:
        keys.write_text(original + f'carol = "{digest(carol)}"\n')  # as a digest, not the key
        assert httpx.post(search, json={}, headers={"x-api-key": carol}).status_code == 200
        keys.write_text(original)
        assert httpx.post(search, json={}, headers={"x-api-key": carol}).status_code == 401
        keys.write_text("[keys]\nbroken = ")  # a broken file refuses everyone, never stale keys
        response = httpx.post(search, json={}, headers={"x-api-key": KEYS["alice"]})
        assert response.status_code == 401 and "key file is broken" in response.text
    finally:
        keys.write_text(original)
    assert httpx.post(search, json={}, headers={"x-api-key": KEYS["alice"]}).status_code == 200
    log = (Path(deployment.env["SERVER_BASE"]) / "current" / "log").read_text()
    assert KEYS["alice"] not in log and carol not in log  # keys are never logged


@pytest.mark.parametrize(
    "fault", ["key file", "database", "prompts", "setting", "index", "llm package", "reader"]
)
def test_a_server_that_cannot_start_says_why_in_one_line(deployment, tmp_path, fault):
    """Ready means it can answer: a deployment whose index, LLM or reader cannot load is refused
    before anything starts (every run of such a server failed, after it had said `ready`)."""
    env = {**deployment.env, "SERVER_BASE": str(tmp_path / "base")}
    if fault == "index":
        env["SEARCHAIN_INDEX"] = str(tmp_path / "no-index")
        expected = f"cannot serve this deployment: {tmp_path / 'no-index'} is not a searchain index"
    elif fault == "llm package":  # a provider whose LangChain package the environment lacks
        env["SEARCHAIN_LLM"] = "anthropic:claude-3-5-haiku-latest"
        expected = "needs its LangChain integration: pip install langchain-anthropic"
    elif fault == "reader":
        env["SEARCHAIN_READER"] = str(tmp_path / "no-reader")
        expected = "no such model directory"
    elif fault == "prompts":  # the deployment's settings are read once, at start
        env["SEARCHAIN_PROMPTS"] = str(tmp_path / "missing.toml")
        expected = f"prompt file {tmp_path / 'missing.toml'} does not exist"
    elif fault == "setting":
        env["SEARCHAIN_MAX_CHAIN_NODES"] = "99"
        expected = "SEARCHAIN_MAX_CHAIN_NODES: max_chain_nodes must be between 1 and 30, got 99"
    elif fault == "key file":
        (tmp_path / "keys.toml").write_text('[keys]\nalice = "short"\n')
        env["SEARCHAIN_API_KEYS_FILE"] = str(tmp_path / "keys.toml")
        expected = "the key of 'alice' is shorter than 16"
    else:
        env["DATABASE_URL"] = "postgresql://searchain:secret@127.0.0.1:9/nowhere"
        expected = "cannot reach PostgreSQL at postgresql://127.0.0.1:9/nowhere"  # no password
    done = subprocess.run([SERVER, "start"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert expected in line, done.stderr


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (an exited one its parent has not reaped yet does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def test_a_start_never_empties_the_state_of_a_server_still_starting(deployment, tmp_path):
    """A second start under a live process that never said ready (a start under way, or one
    killed midway) refused in one line: it began with `rm -rf` of that server's state."""
    base = tmp_path / "base"
    (base / "current").mkdir(parents=True)
    starting = subprocess.Popen(["sleep", "300"])
    try:
        (base / "current" / "pid").write_text(str(starting.pid))
        env = {**deployment.env, "SERVER_BASE": str(base)}
        done = subprocess.run(
            [SERVER, "start"], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 1 and done.stdout == ""
        [line] = done.stderr.strip().splitlines()
        assert f"pid {starting.pid}) runs but never said it was ready" in line
        assert (base / "current" / "pid").read_text() == str(starting.pid)  # nothing removed
        assert starting.poll() is None
    finally:
        starting.kill()


def test_each_checkout_keeps_its_own_state_and_stop_stops_its_postgres(deployment):
    """Two checkouts on one machine shared /tmp/searchain-server and /tmp/searchain-pg; stop
    left the server's PostgreSQL running."""
    key = {}
    for root in ("/a/checkout", "/b/checkout"):
        done = subprocess.run(
            ["bash", "-c", f'. "{ROOT}/scripts/state.sh"; ROOT={root} checkout_state'],
            capture_output=True,
            text=True,
            check=True,
        )
        key[root] = done.stdout.strip()
    assert key["/a/checkout"] != key["/b/checkout"]
    base = Path(f"/tmp/searchain-test-{uuid.uuid4().hex[:8]}")  # the postgres user reaches it
    env = {k: v for k, v in deployment.env.items() if k != "DATABASE_URL"}
    env["SERVER_BASE"] = str(base)
    try:
        done = subprocess.run(
            [SERVER, "start"], env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-1500:]
        postmaster = base / "pg" / "current" / "data" / "postmaster.pid"
        pg_pid = int(postmaster.read_text().split()[0])
        assert running(pg_pid)  # its own PostgreSQL
        stopped = subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=300)
        assert stopped.returncode == 0
        assert not running(pg_pid)  # pg_ctl -w returned once it had exited
        assert not (base / "current").exists() and not postmaster.exists()
    finally:
        subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=300)
        shutil.rmtree(base, ignore_errors=True)


def test_a_key_file_named_relative_to_where_the_server_starts(deployment, tmp_path):
    """docs/server.md starts the server with `SEARCHAIN_API_KEYS_FILE=keys.toml`: the workers run
    in the state directory, where that name found no file (every request was a 500)."""
    import httpx

    (tmp_path / "keys.toml").write_text(f'[keys]\nalice = "{KEYS["alice"]}"\n')
    env = {**deployment.env, "SERVER_BASE": str(tmp_path / "base")}
    env["SEARCHAIN_API_KEYS_FILE"] = "keys.toml"
    done = subprocess.run(
        [SERVER, "start"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    try:
        assert done.returncode == 0, done.stderr[-1500:]
        url = done.stdout.strip().splitlines()[-1]
        search = httpx.post(f"{url}/threads/search", json={}, headers={"x-api-key": KEYS["alice"]})
        assert search.status_code == 200, search.text
    finally:
        subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=120)
