"""LangGraph Studio's server: the real `langgraph dev`, driven by the real langgraph-sdk client."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, require
from tests.integration.test_cli import searchain
from tests.tiny_models import make_dpr_reader

LANGGRAPH = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "langgraph"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    exe = str(LANGGRAPH) if LANGGRAPH.exists() else shutil.which("langgraph")
    require(exe is not None, "langgraph-cli[inmem] is not installed (make install)")
    pytest.importorskip("langgraph_sdk")
    work = tmp_path_factory.mktemp("studio")
    shutil.copy(ROOT / "langgraph.json", work / "langgraph.json")
    (work / "searchain").symlink_to(ROOT / "searchain")  # the graph path in langgraph.json
    port = free_port()
    log = (work / "server.log").open("w")
    proc = subprocess.Popen(
        [exe, "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser", "--no-reload"],
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        assert proc.poll() is None, (work / "server.log").read_text()[-2000:]
    else:
        proc.kill()
        pytest.fail("langgraph dev did not answer /ok in 120 s")
    yield url, work
    proc.terminate()
    proc.wait(timeout=30)


def test_studio_serves_the_graph_and_runs_it_with_streaming(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    assert searchain("index", "--demo", "--index", str(work / "index")).returncode == 0
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
    assert set(schemas["input_schema"]["properties"]) == {"question", "task"}
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
    assert updates[0] == "generate_coq" and updates[-1] == "trace"
    assert not [c for c in chunks if c.event == "error"], chunks

    state = client.threads.get_state(thread["thread_id"])["values"]
    assert state["answer"] == "Giotto"
    assert state["references"][0]["title"] == "Lorenzo Monaco"
    assert state["nodes"][0]["source"] == "llm"
