"""LangGraph Studio's server: the real `langgraph dev`, driven by the real langgraph-sdk client."""

from __future__ import annotations

import json

import pytest

from tests.conftest import require_module
from tests.integration.test_cli import searchain
from tests.server import langgraph_dev, write_script
from tests.tiny_models import make_dpr_reader


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from langgraph_dev(tmp_path_factory.mktemp("studio"))


@pytest.fixture(scope="module")
def demo_index(server):
    _, work = server
    assert searchain("index", "--demo", "--index", str(work / "index")).returncode == 0
    return work / "index"


def test_studio_serves_the_graph_and_runs_it_with_streaming(server, demo_index):
    from langgraph_sdk import get_sync_client

    url, work = server
    require_module("torch", "models")  # the tiny DPR reader
    reader = make_dpr_reader(work / "dpr")
    script = work / "script.json"
    script.write_text(
        json.dumps(
            {
                "chains": ["[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"],
                "trace": "He was influenced by Giotto [1]. So the final answer is Giotto.",
            }
        )
    )
    client = get_sync_client(url=url)
    [assistant] = [a for a in client.assistants.search() if a["graph_id"] == "searchain"]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert set(schemas["input_schema"]["properties"]) == {"question", "task", "edit", "messages"}
    context_props = schemas["context_schema"]["properties"]
    assert context_props["r_max"]["default"] == 5 and context_props["r_max"]["description"]
    assert context_props["llm"]["type"] == "string"  # objects are hidden from the form

    thread = client.threads.create()
    chunks = list(
        client.runs.stream(
            thread["thread_id"],
            "searchain",
            input={"question": "Lorenzo Monaco was influenced by which Italian painter?"},
            context={
                "llm": f"scripted:{script}",
                "index": str(work / "index"),
                "reader": f"dpr:{reader}",
            },
            stream_mode=["updates", "custom"],
        )
    )
    events = [c.data["event"] for c in chunks if c.event == "custom"]
    updates = [next(iter(c.data)) for c in chunks if c.event == "updates"]
    assert events[0] == "round_started" and events[-1] == "trace_done"
    assert updates[:2] == ["receive", "generate_coq"] and updates[-1] == "trace"
    assert not [c for c in chunks if c.event == "error"], chunks

    state = client.threads.get_state(thread["thread_id"])["values"]
    assert state["answer"] == "Giotto"
    assert state["references"][0]["title"] == "Lorenzo Monaco"
    assert state["nodes"][0]["source"] == "llm"


def test_an_approval_resumed_without_context_keeps_the_threads_settings(server, demo_index):
    """`command={"resume": "approve"}` with no context: the run goes on with the thread's own
    scripted LLM, index and approval switch, not the defaults (which would load SmolLM2)."""
    from langgraph_sdk import get_sync_client

    url, work = server
    log = work / "approval.log"
    script = write_script(
        work / "approval.json",
        chains=[
            "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Zeus",
            "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto",
        ],
        log=str(log),
    )
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    context = {
        "llm": f"scripted:{script}",
        "index": str(demo_index),
        "reader": "llm",
        "approve_corrections": True,
    }
    question = {"question": "Lorenzo Monaco was influenced by which Italian painter?"}
    client.runs.wait(thread, "searchain", input=question, context=context)
    state = client.threads.get_state(thread)
    [pending] = state["interrupts"]
    args = pending["value"]["action_requests"][0]["args"]
    assert args["model_answer"] == "Zeus" and args["answer"]
    assert state["values"]["settings"]["approve_corrections"] is True

    out = client.runs.wait(thread, "searchain", command={"resume": "approve"})
    assert out["answer"] == "Giotto" and out["nodes"][0]["source"] == "corrected"
    kinds = [json.loads(line)["kind"] for line in log.read_text().splitlines()]
    # All by the thread's script; the re-planned chain repeats the corrected query (not re-read).
    assert kinds == ["chain", "reader", "chain", "trace"]


def test_a_person_edits_a_step_through_the_sdk(server, demo_index):
    """``input={"edit": ...}`` on a finished thread: the step becomes ``edited`` and the run
    re-plans from it with the thread's own settings (no context sent again)."""
    from langgraph_sdk import get_sync_client

    url, work = server
    script = write_script(
        work / "edit.json",
        chains=[
            "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto",
            "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Cimabue\n"
            "[Final Content]: So the final answer is Cimabue.",
        ],
        trace="He was influenced by Cimabue [1]. So the final answer is Cimabue.",
    )
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    context = {"llm": f"scripted:{script}", "index": str(demo_index), "reader": "llm"}
    question = {"question": "Lorenzo Monaco was influenced by which Italian painter?"}
    first = client.runs.wait(thread, "searchain", input=question, context=context)
    assert first["nodes"][0]["source"] == "llm" and first["rounds"] == 1

    out = client.runs.wait(thread, "searchain", input={"edit": {"node": 0, "answer": "Cimabue"}})
    node = out["nodes"][0]
    assert (node["source"], node["answer"], node["support"]) == ("edited", "Cimabue", "unstated")
    assert out["rounds"] == 2 and out["branches"][1]["root"] == 0
    assert out["answer"] == "Cimabue" and out["references"][0]["support"] == "unstated"
    bad = client.runs.create(thread, "searchain", input={"edit": {"node": 5, "answer": "x"}})
    client.runs.join(thread, bad["run_id"])
    assert client.runs.get(thread, bad["run_id"])["status"] == "error"
    assert client.threads.get_state(thread)["values"]["nodes"][0]["answer"] == "Cimabue"


def test_five_runs_on_five_threads_run_at_once(server, demo_index):
    """Each run's first LLM call waits until all five have started: were the server to run
    them one at a time, the first would never see the others and fail."""
    from langgraph_sdk import get_sync_client

    url, work = server
    script = write_script(work / "five.json", barrier=5, barrier_dir=str(work / "five-barrier"))
    client = get_sync_client(url=url)
    context = {"llm": f"scripted:{script}", "index": str(demo_index), "reader": "llm"}
    runs = []
    for i in range(5):
        thread = client.threads.create()["thread_id"]
        question = {"question": f"Lorenzo Monaco was influenced by which painter ({i})?"}
        runs.append(
            (thread, client.runs.create(thread, "searchain", input=question, context=context))
        )
    for thread, run in runs:
        client.runs.join(thread, run["run_id"])
        assert client.runs.get(thread, run["run_id"])["status"] == "success"
        assert client.threads.get_state(thread)["values"]["answer"] == "Giotto"


def test_mcp_on_langgraph_dev_answers_in_one_line_and_with_the_cited_answer(server, demo_index):
    from langgraph_sdk import get_sync_client

    from tests.integration.test_server import mcp_session
    from tests.server import QUESTION

    url, work = server
    script = write_script(work / "mcp-script.json")
    # MCP runs each graph's default assistant: a deployment configures that one (or sets
    # SEARCHAIN_* in the server's environment). First without an index, then with one.
    client = get_sync_client(url=url)
    [default] = [a for a in client.assistants.search() if a["graph_id"] == "searchain"]
    settings = {"llm": f"scripted:{script}", "reader": "llm"}

    async def list_and_ask(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        return tools, await client.call_tool("searchain", {"question": QUESTION})

    try:
        client.assistants.update(
            default["assistant_id"], context={**settings, "index": str(work / "no-index")}
        )
        tools, unconfigured = mcp_session(url, {}, list_and_ask)
        client.assistants.update(
            default["assistant_id"], context={**settings, "index": str(demo_index)}
        )
        _, answer = mcp_session(url, {}, list_and_ask)
    finally:
        client.assistants.update(default["assistant_id"], context={})
    assert set(tools) == {"searchain", "ircot"}
    assert "numbered citations" in tools["searchain"].description
    # The index error's message, in one line (not its class name, not the whole state).
    assert unconfigured.is_error
    [line] = unconfigured.content[0].text.splitlines()
    assert "no-index is not a searchain index" in line and "IndexLoadError" not in line
    assert not answer.is_error
    assert answer.content[0].text.startswith("Answer: Giotto")
    assert answer.structured_content["references"][0]["title"] == "Lorenzo Monaco"
