"""A hostile key holder against the real team server (Aegra, 2 workers, PostgreSQL, Redis).

Issue 30: a caller may send questions and the caller's settings, nothing more. Each attack is
tried over the sdk, raw HTTP or MCP, and each is refused in one line — or, where the caller's
words are simply not read (a thread's saved settings, a forged Host), the run goes on with the
deployment's settings. A loopback listener of the test's own stands for any URL a caller might
name: it must receive no connection at all.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_server import mcp_session, status_of
from tests.server import KEYS, QUESTION, SERVER

pytestmark = pytest.mark.integration


class Listener:
    """A TCP listener on loopback that counts the connections it receives."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.connections = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


def refused(response, status: int, *fragments: str) -> None:
    """``response`` is an error of ``status`` whose message is one line holding ``fragments``."""
    assert response.status_code == status, response.text
    message = response.json()["message"]
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def hostile_settings(listener: Listener, secret: Path) -> list[dict]:
    """Settings that would open the caller's files, reach the caller's URL or load models."""
    return [
        {"llm": f"scripted:{secret}"},
        {"llm": "gguf:/etc/hostname"},
        {"prompts": str(secret)},
        {"retriever": "elasticsearch", "es_url": listener.url},
        {"index": "/etc"},
        {"reader": str(secret.parent)},
        {"ircot_demos": str(secret)},
        {"verifier": "nli:/tmp/model"},
        {"llm": f"openai:any-model?base_url={listener.url}"},
    ]


@pytest.fixture
def secret(tmp_path) -> Path:
    path = tmp_path / "keys.toml"
    path.write_text(
        '[keys]\nalice = "sk-the-secret-of-alice-00"\nbob = "sk-the-secret-of-bob-000"\n'
    )
    return path


def test_a_run_naming_a_deployment_setting_is_refused(deployment, listener, secret):
    """Issue 30, case 1: per run, in `context` and in `config.configurable`, with a thread and
    without (a stateless run), over raw HTTP: 400 naming the field, nothing opened or fetched."""
    import httpx

    headers = {"x-api-key": KEYS["alice"]}
    thread = httpx.post(f"{deployment.url}/threads", json={}, headers=headers).json()["thread_id"]
    for settings in hostile_settings(listener, secret):
        field = sorted(settings)[0]
        for path in (f"/threads/{thread}/runs/wait", "/runs/wait"):
            for body in (
                {"context": settings},
                {"config": {"configurable": settings}},
            ):
                request = {"assistant_id": "searchain", "input": {"question": QUESTION}, **body}
                response = httpx.post(deployment.url + path, json=request, headers=headers)
                refused(response, 400, f"{field}", "the deployment's setting")
                assert "sk-the-secret" not in response.text and "alice" not in response.text
    assert listener.connections == 0


def test_an_assistant_naming_a_deployment_setting_is_refused(deployment, listener, secret):
    """Issue 30, case 1: per assistant, made or updated over the sdk."""
    alice = deployment.client("alice")
    mine = alice.assistants.create("searchain", context={"r_max": 4, "alpha": 0.3}, name="hostile")
    for settings in hostile_settings(listener, secret):
        made = status_of(lambda s=settings: alice.assistants.create("searchain", context=s))
        updated = status_of(
            lambda s=settings: alice.assistants.update(mine["assistant_id"], context=s)
        )
        assert (made, updated) == (400, 400), settings
    out = alice.runs.wait(None, mine["assistant_id"], input={"question": QUESTION})
    assert out["answer"] == "Giotto"  # the assistant kept its own settings, and works
    assert listener.connections == 0


def test_a_thread_never_supplies_a_deployment_setting(deployment, listener, secret):
    """Issue 30, case 1, per thread: a thread remembers its settings in its state, which a caller
    can write; on the team server the deployment's settings never come from there."""
    alice = deployment.client("alice")
    thread = alice.threads.create()["thread_id"]
    first = alice.runs.wait(thread, "searchain", input={"question": QUESTION})
    assert first["answer"] == "Giotto"
    forged = {"llm": f"scripted:{secret}", "retriever": "elasticsearch", "es_url": listener.url}
    status = status_of(lambda: alice.threads.update_state(thread, {"settings": forged}))
    assert status == 400  # issue 40: the thread's state is a carrier of settings too
    out = alice.runs.wait(thread, "searchain", input={"question": "And who taught Giotto?"})
    assert out["answer"] == "Giotto", out  # the deployment's model and index answered
    assert listener.connections == 0


def test_model_specs_in_a_loop_load_nothing(deployment):
    """Issue 30, case 2: `local?n_ctx=2049`, `…2050`, … each loaded another model until the
    worker died; now each is refused before any model loads, and the workers stay flat."""
    import httpx

    headers = {"x-api-key": KEYS["bob"]}
    before = worker_memory(deployment)
    for n in range(40):
        request = {
            "assistant_id": "searchain",
            "input": {"question": QUESTION},
            "context": {"llm": f"local?n_ctx={2049 + n}"},
        }
        response = httpx.post(f"{deployment.url}/runs/wait", json=request, headers=headers)
        refused(response, 400, "llm: the deployment's setting")
    after = worker_memory(deployment)
    assert after - before < 64 * 2**20, (before, after)  # one SmolLM2 alone is ~150 MiB


def worker_memory(deployment) -> int:
    """The resident memory of the server's processes (the uvicorn parent and its workers)."""
    pid = int((Path(deployment.env["SERVER_BASE"]) / "current" / "pid").read_text())
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            status = (proc / "status").read_text()
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if int(proc.name) == pid or parent == pid or pgid(stat) == pid:
            total += next(
                int(line.split()[1]) * 1024
                for line in status.splitlines()
                if line.startswith("VmRSS:")
            )
    return total


def pgid(stat: str) -> int:
    return int(stat.rpartition(")")[2].split()[2])


def test_nothing_but_health_answers_without_a_key(deployment):
    """Issue 30, case 4: /docs, /redoc and /openapi.json answered without a key (and Aegra
    exempts more: /, /info, /metrics, /ready, /live)."""
    import httpx

    for path in ("/docs", "/redoc", "/openapi.json", "/", "/info", "/metrics", "/ready", "/live"):
        response = httpx.get(deployment.url + path, timeout=60)
        assert response.status_code == 401, (path, response.status_code, response.text[:200])
        assert "API key" in response.json()["message"]
    assert httpx.get(deployment.url + "/health", timeout=60).status_code == 200
    key = {"x-api-key": KEYS["alice"]}
    assert httpx.get(deployment.url + "/info", headers=key, timeout=60).status_code == 200


def test_a_forged_host_sends_mcp_runs_nowhere_else(deployment, listener):
    """Issue 30, case 5: the MCP bridge built its internal client from the Host header (any
    loopback port passes the transport's check): the runs went where the caller said."""

    async def work(client):
        return await client.call_tool("searchain", {"question": QUESTION})

    headers = {"x-api-key": KEYS["alice"], "host": f"127.0.0.1:{listener.port}"}
    answer = mcp_session(deployment.url, headers, work)
    assert not answer.is_error, answer.content
    assert answer.structured_content["answer"] == "Giotto"
    assert listener.connections == 0


def test_an_mcp_call_cannot_name_a_deployment_setting(deployment, listener):
    """Issue 30, case 1, per MCP call: the tools take a question, a task and the files sent
    with it (issue 43), nothing else."""

    async def work(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        answer = await client.call_tool(
            "searchain", {"question": QUESTION, "es_url": listener.url, "llm": "gguf:/etc/x"}
        )
        return tools, answer

    tools, answer = mcp_session(deployment.url, {"x-api-key": KEYS["alice"]}, work)
    assert set(tools["searchain"].input_schema["properties"]) == {"question", "task", "files"}
    assert answer.is_error
    [line] = answer.content[0].text.splitlines()
    assert "es_url" in line and "llm" in line
    assert listener.connections == 0


def test_a_user_past_the_fair_share_gets_a_429_and_others_do_not_wait(deployment):
    """Issue 30, case 6: one user could queue any number of runs; now the fifth at once is a 429
    naming the bound, and another user's question is admitted at once."""
    import httpx

    slow = deployment.client("user7")
    threads = [slow.threads.create()["thread_id"] for _ in range(6)]
    statuses = []
    for thread in threads:  # the deployment's model `hold` waits for a file: the runs stay
        request = {"assistant_id": "searchain", "input": {"question": QUESTION}}
        request["context"] = {"llm": "hold"}
        response = httpx.post(
            f"{deployment.url}/threads/{thread}/runs",
            json=request,
            headers={"x-api-key": KEYS["user7"]},
            timeout=60,
        )
        statuses.append(response.status_code)
        if response.status_code == 429:
            refused(response, 429, "user7 has 4 runs under way", "SEARCHAIN_RUNS_PER_USER")
    assert all(status < 300 for status in statuses[:4]) and statuses[4:] == [429, 429]
    other = deployment.client("user6")
    out = other.runs.wait(None, "searchain", input={"question": QUESTION})
    assert out["answer"] == "Giotto"
    (deployment.work / "hold.release").touch()  # the held runs finish
    for thread in threads[:4]:
        slow.runs.join(thread, slow.runs.list(thread)[0]["run_id"])
    again = slow.runs.wait(threads[4], "searchain", input={"question": QUESTION})
    assert again["answer"] == "Giotto"  # room again once they finished


@pytest.mark.parametrize("user", ["system", "anonymous", "System"])
def test_a_key_file_user_named_as_the_server_is_refused_at_start(deployment, tmp_path, user):
    """Issue 30, case 3: a key-file user `system` owned the shared assistants."""
    import subprocess

    keys = tmp_path / "keys.toml"
    keys.write_text(f'[keys]\n{user} = "sk-a-key-that-is-long-enough"\n')
    env = {**deployment.env, "SERVER_BASE": str(tmp_path / "base")}
    env["SEARCHAIN_API_KEYS_FILE"] = str(keys)
    done = subprocess.run([SERVER, "start"], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode == 0:  # it should not have started: leave no server behind
        subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert f"{user!r} is an identity the server uses for itself" in line


def test_a_server_whose_authentication_did_not_load_is_never_reported_ready(deployment, tmp_path):
    """Issue 30, case 4: Aegra falls back to anonymous access when its auth module is missing;
    `server.sh start` decided the server was ready from /health alone."""
    import json
    import subprocess

    from tests.conftest import ROOT

    config = json.loads((ROOT / "aegra.json").read_text())
    config.pop("auth")
    config.pop("http")  # and the app whose gate would still refuse keyless requests
    for graph in config["graphs"].values():
        graph["path"] = str(ROOT / graph["path"])
    (tmp_path / "aegra.json").write_text(json.dumps(config))
    env = {**deployment.env, "SERVER_BASE": str(tmp_path / "base")}
    env["AEGRA_CONFIG"] = str(tmp_path / "aegra.json")
    done = subprocess.run([SERVER, "start"], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode == 0:  # it should not have started: leave no server behind
        subprocess.run([SERVER, "stop"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 1 and done.stdout == "", done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "answered /assistants/search without a key (200, not 401)" in last, done.stderr
    assert not (tmp_path / "base" / "current").exists()  # stopped, nothing left running
