"""The team server closed by default (issue 40), tried by a hostile key holder from outside.

Against the real server (Aegra, 2 workers, PostgreSQL, Redis; tests/server.py): every route of
its own route table with a key and without; every carrier of settings with a deployment field, a
wrong type, an unknown field, a path (a file, /dev/zero, a FIFO) and a URL; crons; bursts of
stateless runs, runs on caller-minted threads and MCP calls for one user. What is measured: the
refusals (one line each), the files the server's processes opened under the folder the attacks
name (an audit hook in each process: tests/audit), the connections a loopback listener received,
``/health`` answered throughout, the workers' memory, and the user's runs under way sampled from
the server's database the whole time.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from searchain.server.routes import ALLOWED, unlisted
from tests.conftest import ROOT
from tests.integration.test_server import mcp_session, wait_for
from tests.integration.test_server_hostile import Listener, refused, worker_memory
from tests.server import KEYS, QUESTION, SERVER_VENV

pytestmark = pytest.mark.integration


DUMP_ROUTES = """
import json
from aegra_api.main import app
from searchain.server.routes import route_table
paths = app.openapi().get("paths", {})
openapi = sorted({(m.upper(), p) for p, ops in paths.items() for m in ops})
print("ROUTES " + json.dumps({"app": route_table(app), "openapi": openapi}))
"""


@pytest.fixture(scope="module")
def route_table(deployment) -> dict[str, list[tuple[str, str]]]:
    """The running server's route table: the routes of its app and of its OpenAPI document,
    built by the server's own code and configuration (aegra.json) in its own environment."""
    env = {**deployment.env, "AEGRA_CONFIG": str(ROOT / "aegra.json")}
    python = SERVER_VENV / "bin" / "python"
    done = subprocess.run(
        [str(python), "-c", DUMP_ROUTES],
        env=env,
        cwd=deployment.work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("ROUTES "))
    found = json.loads(line.removeprefix("ROUTES "))
    return {kind: [tuple(route) for route in routes] for kind, routes in found.items()}


def test_every_route_is_allowed_or_refused(route_table):
    """A route that is neither (an Aegra upgrade's) fails here before it is served."""
    assert unlisted(route_table["app"]) == []
    assert unlisted(route_table["openapi"]) == []
    served = set(route_table["app"])
    assert served >= ALLOWED, sorted(ALLOWED - served)  # the list names real routes


def concrete(template: str) -> str:
    """A request path for ``template``: ids nobody has."""
    for name in ("thread_id", "run_id", "assistant_id", "checkpoint_id", "cron_id"):
        template = template.replace("{" + name + "}", str(uuid.uuid4()))
    return template


def test_every_route_with_a_key_and_without(deployment, route_table):
    """Without a key: 401 everywhere but /health. With one: every refused route is a 404 in one
    line before Aegra sees it; every allowed route reaches Aegra (its own answer, never ours)."""
    import httpx

    key = {"x-api-key": KEYS["user3"]}
    with httpx.Client(base_url=deployment.url, timeout=120) as http:
        for method, template in sorted(route_table["app"]):
            path = concrete(template)
            body = None if method in ("GET", "DELETE") else {}
            bare = http.request(method, path, json=body)
            if (method, template) == ("GET", "/health"):
                assert bare.status_code == 200
                continue
            assert bare.status_code == 401, (method, template, bare.text)
            with http.stream(method, path, json=body, headers=key) as keyed:
                streams = keyed.headers.get("content-type", "").startswith("text/event-stream")
                text = "" if streams else keyed.read().decode()  # a stream is left unread
            if (method, template) in ALLOWED:
                gate = "is not a route of this server" in text
                assert not gate and keyed.status_code < 500, (method, template, text)
            else:
                refused(keyed, 404, f"{method} {path} is not a route of this server")
        # The neighbours of allowed routes: another method, a trailing slash, a segment more.
        for method, path in (
            ("PUT", "/threads"),
            ("GET", "/threads/"),
            ("HEAD", "/info"),
            ("GET", f"/threads/{uuid.uuid4()}/state/x/y"),
            ("POST", "/runs/wait/"),
            ("GET", "/mcp/x"),
        ):
            response = http.request(method, path, headers=key)
            assert response.status_code == 404, (method, path, response.status_code)


def test_a_keyless_preflight_gets_the_answer_its_route_gets(deployment):
    """Issue 67: keyless CORS preflights got 200 on refused paths (Aegra's CORS middleware
    answered them before the key gate saw them)."""
    import httpx

    def preflight(method: str, path: str) -> httpx.Response:
        asks = {"origin": "https://app.example", "access-control-request-method": method}
        return httpx.options(deployment.url + path, headers=asks, timeout=60)

    for method, path in (("POST", "/runs/crons"), ("PUT", "/store/items"), ("PUT", "/threads")):
        response = preflight(method, path)
        refused(response, 404, f"{method} {path} is not a route of this server")
        assert "access-control-allow-origin" not in response.headers
    allowed = preflight("POST", "/threads")
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] in ("*", "https://app.example")


@contextmanager
def meanwhile(step: Callable[[], None]) -> Iterator[None]:
    """``step`` done again and again, in a thread of its own, for as long as the block runs."""
    done = threading.Event()

    def repeat() -> None:
        while not done.is_set():
            step()

    thread = threading.Thread(target=repeat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=120)


@contextmanager
def health_watch(url: str) -> Iterator[list[str]]:
    """``/health`` asked again and again while the block runs; the failures, listed."""
    import httpx

    failures: list[str] = []

    def ask() -> None:
        try:
            if http.get(f"{url}/health").status_code != 200:
                failures.append("not 200")
        except httpx.HTTPError as exc:
            failures.append(type(exc).__name__)

    with httpx.Client(timeout=60) as http, meanwhile(ask):
        yield failures


def attacks(watched: Path, listener: Listener) -> list[tuple[dict, str]]:
    """Settings a hostile caller sends, each with the field its refusal names."""
    secret = watched / "keys.toml"
    secret.write_text('[keys]\nalice = "sk-the-secret-of-alice-00"\n')
    zero = watched / "zero"
    if not zero.exists():
        zero.symlink_to("/dev/zero")
    fifo = watched / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    return [
        ({"prompts": str(secret), "task": "qa"}, "prompts"),
        ({"prompts": str(zero)}, "prompts"),
        ({"prompts": str(fifo)}, "prompts"),
        ({"prompts": "/dev/zero"}, "prompts"),
        ({"ircot_demos": str(fifo)}, "ircot_demos"),
        ({"llm": f"gguf:{secret}"}, "llm"),
        ({"retriever": "elasticsearch", "es_url": listener.url}, "es_url"),
        ({"llm": f"openai:x?base_url={listener.url}"}, "llm"),
        ({"verify": "false"}, "verify"),
        ({"approve_corrections": "no"}, "approve_corrections"),
        ({"max_chain_nodes": 2.5}, "max_chain_nodes"),
        ({"r_max": "3"}, "r_max"),
        ({"theta": [1]}, "theta"),
        ({"nonsense": 1}, "nonsense"),
    ]


def carriers(settings: dict, thread: str, assistant: str) -> list[tuple[str, str, dict]]:
    """Every place a request of an allowed route carries settings, holding ``settings``."""
    run = {"assistant_id": "searchain", "input": {"question": QUESTION}}
    return [
        ("POST", "/runs/wait", {**run, "context": settings}),
        ("POST", "/runs", {**run, "config": {"configurable": settings}}),
        ("POST", f"/threads/{thread}/runs/wait", {**run, "context": settings}),
        ("POST", f"/threads/{thread}/runs/stream", {**run, "config": {"configurable": settings}}),
        ("POST", f"/threads/{uuid.uuid4()}/runs", {**run, "context": settings}),  # minted id
        ("POST", "/assistants", {"graph_id": "searchain", "context": settings}),
        ("POST", "/assistants", {"graph_id": "searchain", "config": {"configurable": settings}}),
        ("PATCH", f"/assistants/{assistant}", {"context": settings}),
        ("POST", f"/threads/{thread}/state", {"values": {"settings": settings}}),
        ("POST", f"/threads/{thread}/state", {"values": [{"settings": settings}]}),
        (
            "POST",
            f"/threads/{thread}/runs/wait",
            {"assistant_id": "searchain", "command": {"update": {"settings": settings}}},
        ),
    ]


def test_no_carrier_makes_the_server_open_a_file_or_reach_a_url(deployment):
    """Issue 40, cases 1 and 4: a v2 command's `params` made the server open any file (the key
    file's user names came back, /dev/zero grew a worker, a FIFO froze its event loop); strings
    and fractions passed as switches and counts. Now every carrier of every allowed route is a
    400 in one line naming the field, the v2 route a 404, and nothing is opened or fetched."""
    import httpx

    listener = Listener()
    watched = deployment.work / "watched"
    headers = {"x-api-key": KEYS["user2"]}
    user2 = deployment.client("user2")
    thread = user2.threads.create()["thread_id"]
    assistant = user2.assistants.create("searchain", context={"r_max": 2})["assistant_id"]
    user2.runs.wait(thread, "searchain", input={"question": QUESTION})
    before = worker_memory(deployment)  # the attacks load nothing: the workers stay as they are
    try:
        with health_watch(deployment.url) as failures, httpx.Client(timeout=120) as http:
            for settings, field in attacks(watched, listener):
                for method, path, body in carriers(settings, thread, assistant):
                    response = http.request(method, deployment.url + path, json=body,
                                            headers=headers)  # fmt: skip
                    refused(response, 400, field)
                    assert "sk-the-secret" not in response.text
                for kind in ("run.start", "input.respond"):  # the Agent Protocol v2's commands
                    command = {"id": 1, "method": kind, "params": {"assistant_id": "searchain",
                               "input": {"question": QUESTION}, "context": settings}}  # fmt: skip
                    response = http.post(f"{deployment.url}/threads/{thread}/commands",
                                         json=command, headers=headers)  # fmt: skip
                    refused(response, 404, "is not a route of this server")
            grown = worker_memory(deployment) - before
            out = user2.runs.wait(thread, "searchain", input={"question": QUESTION})
        assert out["answer"] == "Giotto"  # the thread and the server still answer
        assert failures == []
    finally:
        listener.close()
    opened = Path(deployment.env["SEARCHAIN_TEST_OPENED"])
    assert not opened.exists(), opened.read_text()
    assert listener.connections == 0
    assert grown < 64 * 2**20, grown


def test_crons_are_not_served(deployment):
    """Issue 40, case 2: crons fired their runs from the server's scheduler, past the fair share
    (8 under way against 4 for one user); now their routes are 404 and the scheduler is off."""
    import httpx

    headers = {"x-api-key": KEYS["user1"]}
    thread = deployment.client("user1").threads.create()["thread_id"]
    cron = {"assistant_id": "searchain", "schedule": "* * * * *", "input": {"question": QUESTION}}
    for path in ("/runs/crons", f"/threads/{thread}/runs/crons", "/runs/crons/search"):
        response = httpx.post(deployment.url + path, json=cron, headers=headers, timeout=60)
        refused(response, 404, "is not a route of this server")


UNDER_WAY = "SELECT count(*) FROM runs WHERE user_id = %s AND status IN ('pending', 'running')"


def under_way(deployment, user: str) -> int:
    """The user's runs pending or running, in the server's database."""
    import psycopg

    with psycopg.connect(deployment.env["DATABASE_URL"], autocommit=True) as conn:
        [(count,)] = conn.execute(UNDER_WAY, (user,)).fetchall()
    return count


@contextmanager
def under_way_watch(deployment, user: str) -> Iterator[list[int]]:
    """The user's runs pending or running, sampled from the server's database while the block
    runs (and the ledger's count beside them): every sample, listed."""
    import psycopg

    samples: list[int] = []
    ledger = "SELECT count(*) FROM searchain_runs WHERE user_id = %s"

    def sample() -> None:
        [(runs,)] = conn.execute(UNDER_WAY, (user,)).fetchall()
        [(held,)] = conn.execute(ledger, (user,)).fetchall()
        samples.append(max(runs, held))

    url = deployment.env["DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as conn, meanwhile(sample):
        yield samples


def test_bursts_by_every_route_stay_within_the_fair_share(deployment):
    """Issue 40, case 3: 10 simultaneous stateless runs put 6-7 under way against 4 (the count
    waited for rows the server writes after the admission). Now 20 at once, stateless and on
    caller-minted thread ids, admit exactly 4, and the runs under way never pass 4."""
    import httpx

    user = "user5"
    release = deployment.work / "gate.release"
    release.unlink(missing_ok=True)
    headers = {"x-api-key": KEYS[user]}
    run = {"assistant_id": "searchain", "input": {"question": QUESTION}, "context": {"llm": "gate"}}
    paths = ["/runs" if i % 2 else f"/threads/{uuid.uuid4()}/runs" for i in range(20)]
    start = threading.Barrier(len(paths))

    def post(path: str) -> httpx.Response:
        start.wait()
        return httpx.post(deployment.url + path, json=run, headers=headers, timeout=120)

    with under_way_watch(deployment, user) as samples, health_watch(deployment.url) as failures:
        with ThreadPoolExecutor(len(paths)) as pool:
            responses = list(pool.map(post, paths))
        statuses = sorted(r.status_code for r in responses)
        assert statuses.count(429) == 16 and all(s < 300 for s in statuses[:4]), statuses
        for response in responses:
            if response.status_code == 429:
                refused(response, 429, f"{user} has 4 runs under way", "SEARCHAIN_RUNS_PER_USER")
        release.touch()  # the four held runs finish
        wait_for(lambda: under_way(deployment, user) == 0, "the held runs to finish")
    assert samples and max(samples) <= 4, max(samples)
    assert failures == []  # /health answered throughout
    out = deployment.client(user).runs.wait(None, "searchain", input={"question": QUESTION})
    assert out["answer"] == "Giotto"  # the places were given back


def test_mcp_calls_at_once_stay_within_the_fair_share(deployment):
    """20 simultaneous MCP calls by one user: each an answer or a one-line refusal, and the
    runs under way never past the share."""
    user = "user4"

    async def work(client):
        import asyncio

        calls = [client.call_tool("searchain", {"question": QUESTION}) for _ in range(20)]
        return await asyncio.gather(*calls)

    with under_way_watch(deployment, user) as samples, health_watch(deployment.url) as failures:
        results = mcp_session(deployment.url, {"x-api-key": KEYS[user]}, work)
    answered = [r for r in results if not r.is_error]
    assert answered and all(r.structured_content["answer"] == "Giotto" for r in answered)
    for result in results:
        if result.is_error:
            [line] = result.content[0].text.splitlines()
            assert "refused (429): user4 has 4 runs under way, the most one" in line, line
    assert samples and max(samples) <= 4, max(samples)
    assert failures == []


def test_a_run_the_requests_did_not_admit_is_refused_where_it_starts(deployment, monkeypatch):
    """The bound holds where runs start executing, whatever route made them: with the user's
    four places held by running runs, a fifth run taking a place (as a graph factory does for
    every run it executes) is refused in one line."""
    import asyncio

    import httpx

    from searchain.server.fair_share import take

    monkeypatch.setenv("DATABASE_URL", deployment.env["DATABASE_URL"])
    user = "user6"
    release = deployment.work / "gate.release"
    release.unlink(missing_ok=True)
    headers = {"x-api-key": KEYS[user]}
    run = {"assistant_id": "searchain", "input": {"question": QUESTION}, "context": {"llm": "gate"}}
    made = [httpx.post(f"{deployment.url}/runs", json=run, headers=headers, timeout=60).json()
            for _ in range(4)]  # fmt: skip
    client = deployment.client(user)
    try:
        for body in made:  # each is executing
            wait_for(
                lambda b=body: client.runs.get(b["thread_id"], b["run_id"])["status"] == "running",
                "the held run to start",
            )
        with pytest.raises(ValueError) as caught:
            asyncio.run(take(user, str(uuid.uuid4()), None))
        assert str(caught.value) == (
            f"{user} has 4 runs under way, the most one user may (SEARCHAIN_RUNS_PER_USER): "
            "this run did not start"
        )
    finally:
        release.touch()
        wait_for(lambda: under_way(deployment, user) == 0, "the held runs to finish")


def test_remote_graph_in_a_checkpointed_parent_passes_langgraphs_own_keys(deployment):
    """The neighbour of the settings in `configurable`: a RemoteGraph inside a parent graph that
    keeps threads sends the parent's `thread_id` there, which is LangGraph's, not a setting (it
    reached the Context as an unknown field before); a key of the parent's own application is
    refused in one line, naming it."""
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.pregel.remote import RemoteGraph

    class Parent(TypedDict, total=False):
        question: str
        answer: str

    remote = RemoteGraph("searchain", url=deployment.url, api_key=KEYS["user1"])
    parent = StateGraph(Parent)
    parent.add_node("searchain", remote)
    parent.add_edge(START, "searchain")
    parent.add_edge("searchain", END)
    graph = parent.compile(checkpointer=InMemorySaver())
    thread = str(uuid.uuid4())
    out = graph.invoke({"question": QUESTION}, {"configurable": {"thread_id": thread, "r_max": 2}})
    assert out["answer"] == "Giotto"
    with pytest.raises(Exception) as caught:  # the sdk's error for a 400
        graph.invoke(
            {"question": QUESTION}, {"configurable": {"thread_id": str(uuid.uuid4()), "tenant": 7}}
        )
    assert "config.configurable: unknown setting tenant" in str(caught.value)


def test_a_malformed_decision_is_refused_before_any_run(deployment):
    """Issue 41, case 4: ``{"type": "Approve"}`` was read as a rejection. A resume value that is
    no decision is a 400 naming the forms; the thread still awaits one, and a decision works."""
    import httpx

    user2 = deployment.client("user2")
    thread = user2.threads.create()["thread_id"]
    user2.runs.wait(thread, "searchain", input={"question": QUESTION},
                    context={"approve_corrections": True})  # fmt: skip
    before = user2.threads.get_state(thread)
    body = {"assistant_id": "searchain", "context": {"approve_corrections": True}}
    headers = {"x-api-key": KEYS["user2"]}
    with httpx.Client(timeout=120) as http:
        for value in ({"type": "Approve"}, {"decisions": [{"type": "accept"}]}, "maybe",
                      {"decisions": [{"type": "edit", "edited_action": "Giotto"}]}):  # fmt: skip
            run = {**body, "command": {"resume": value}}
            path = f"{deployment.url}/threads/{thread}/runs/wait"
            response = http.post(path, json=run, headers=headers)
            refused(response, 400, "a decision is")
    after = user2.threads.get_state(thread)
    assert after["checkpoint"] == before["checkpoint"]  # no run started: nothing changed
    assert user2.threads.get(thread)["status"] != "error"
