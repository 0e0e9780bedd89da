"""Models behind an OpenAI-compatible server: llama.cpp's own server on loopback, serving SmolLM2.

It stands in for vLLM or Ollama: ``searchain ask`` answers through it with token usage, ``auto``
picks the model it serves, sampling settings travel with the spec, and an unreachable server, a
refused key or a wrong endpoint each end in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from searchain.tools.llms.resolve import resolve_llm, smollm2_path
from tests.conftest import require_module
from tests.integration.test_cli import one_line_error, searchain
from tests.server import free_port

pytestmark = pytest.mark.integration

KEY = "sk-searchain-test"


SERVE = """import runpy
from searchain.tools.llms.cpu_buffers import plain_cpu_buffers
with plain_cpu_buffers():  # llama.cpp's AMX buffers crash on some AMX machines
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""
"""``python -m llama_cpp.server``, its model loaded as searchain loads its own."""


@pytest.fixture(scope="module")
def server(local_llm_available, tmp_path_factory):
    require_module("llama_cpp.server", "dev-llm")
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    process = subprocess.Popen(
        [
            *(sys.executable, "-c", SERVE, "--model", smollm2_path()),
            *("--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port)),
            *("--api_key", KEY, "--n_ctx", "4096", "--verbose", "false"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300  # generous: a loaded CI machine
    while True:
        assert process.poll() is None, "llama.cpp's server exited; see its log"
        try:
            request = urllib.request.Request(
                f"{url}/models", headers={"Authorization": f"Bearer {KEY}"}
            )
            with urllib.request.urlopen(request, timeout=5) as reply:
                if json.load(reply)["data"]:
                    break
        except OSError:
            assert time.monotonic() < deadline, "llama.cpp's server did not come up"
            time.sleep(0.5)
    yield url
    process.terminate()
    process.wait(timeout=60)


def env_for(url: str, key: str = KEY, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return {**env, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": key, **extra}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("openai") / "index"
    done = searchain("index", "--demo", "--index", str(path))
    assert done.returncode == 0, done.stderr
    return path


def test_ask_through_the_server_with_auto_picking_its_model(server, index, tmp_path):
    question = "Lorenzo Monaco was influenced by which Italian painter and architect?"
    done = searchain(
        "ask", question, "--index", str(index), "--llm", "auto", "--reader", "llm",
        "--r-max", "1", "--json", "--db", str(tmp_path / "t.db"),
        env=env_for(server),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["rounds"] == 1 and result["stop_reason"]


def test_python_api_gets_usage_and_sampling_settings(server, monkeypatch):
    require_module("langchain_openai", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = resolve_llm("openai:smollm2?repeat_penalty=1.0&top_k=1&seed=7")
    assert model.extra_body == {"repeat_penalty": 1.0, "top_k": 1}
    assert model.seed == 7 and model.temperature == 0
    reply = model.invoke("Say hello in one word.", max_tokens=8, stop=["\n"])
    assert reply.usage_metadata["input_tokens"] > 0
    assert 0 < reply.usage_metadata["output_tokens"] <= 8
    again = model.invoke("Say hello in one word.", max_tokens=8, stop=["\n"])
    assert again.content == reply.content


@pytest.mark.parametrize(
    "case, fragments",
    [
        ("unreachable", ["cannot reach the LLM server at http://127.0.0.1:", "OPENAI_BASE_URL"]),
        ("bad key", ["refused the API key (401)", "set OPENAI_API_KEY"]),
        ("wrong endpoint", ["answered 404", "OPENAI_BASE_URL"]),
        ("unknown model", ["does not serve 'gpt-9' (it serves: smollm2)"]),
    ],
)
def test_server_failures_are_one_line(server, index, tmp_path, case, fragments):
    require_module("langchain_openai", "openai")
    env = {
        "unreachable": env_for(f"http://127.0.0.1:{free_port()}/v1"),
        "bad key": env_for(server, key="sk-wrong"),
        "wrong endpoint": env_for(server.removesuffix("/v1") + "/nope/v1"),
        "unknown model": env_for(server),
    }[case]
    model = "openai:gpt-9" if case == "unknown model" else "openai:smollm2"
    done = searchain(
        "ask", "Who?", "--index", str(index), "--llm", model, "--reader", "llm",
        "--db", str(tmp_path / "t.db"), env=env,
    )  # fmt: skip
    one_line_error(done, *fragments)
    assert KEY not in done.stderr and "sk-wrong" not in done.stderr
    # Issue 33, case 5: found before a thread database (and a thread "interrupted") exists.
    assert not (tmp_path / "t.db").exists()


def test_openai_itself_is_checked_before_any_work(index, tmp_path):
    """Issue 33, case 5: `openai:MODEL` with no OPENAI_BASE_URL was first called after the
    thread was created; now its API is asked for its models first (unreachable here, or
    refusing this made-up key where it is reachable: one line either way)."""
    require_module("langchain_openai", "openai")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = searchain(
        "ask", "Who?", "--index", str(index), "--llm", "openai:gpt-4o-mini", "--reader", "llm",
        "--db", str(tmp_path / "t.db"), env={**env, "OPENAI_API_KEY": "sk-made-up"},
    )  # fmt: skip
    one_line_error(done, "the LLM server at https://api.openai.com/v1")
    assert "sk-made-up" not in done.stderr
    assert not (tmp_path / "t.db").exists()
    done = searchain(
        "ask", "Who?", "--index", str(index), "--llm", "openai:gpt-4o-mini", "--reader", "llm",
        "--db", str(tmp_path / "t.db"), env=env,
    )  # fmt: skip
    one_line_error(done, "cannot build LLM 'openai:gpt-4o-mini'", "OPENAI_API_KEY")
    assert not (tmp_path / "t.db").exists()
