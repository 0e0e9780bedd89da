"""docs/server.md's "Start it", run as a person pastes it, against llama.cpp's OpenAI-compatible
server on loopback; the question is then asked through the langgraph-sdk client.

The page's start printed `ready` for a server that could not answer: its environment had no
OpenAI client, no local model and no PyTorch for the default reader. Here the block runs with
only the page's own substitutions (the digest it printed, the LLM server's port), in a scratch
folder, with the server's own throw-away PostgreSQL, as the page leaves DATABASE_URL unset.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT, require_module
from tests.integration.test_docs import blocks
from tests.integration.test_openai_server import KEY, env_for, server  # noqa: F401  (fixture)

pytestmark = pytest.mark.integration


def start_block() -> str:
    """The bash block under "## Start it" of docs/server.md."""
    page = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    section = page[page.index("## Start it") :]
    section = section[: section.index("\n## ", 1)]
    (block,) = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert block in blocks(ROOT / "docs" / "server.md", "bash")
    return block


def test_the_pages_start_command_serves_a_question_through_the_sdk(server, tmp_path):  # noqa: F811
    require_module("langgraph_sdk", "studio")
    made = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "searchain-server-key")], capture_output=True, text=True
    )
    key, digest = (line.split()[-1] for line in made.stdout.splitlines()[:2])
    block = (
        start_block()
        .replace("<the digest it printed: sha256:…>", digest)
        .replace("http://127.0.0.1:8080/v1", server)
        .replace(".venv/bin/", f"{ROOT}/.venv/bin/")
        .replace("scripts/server.sh", f"{ROOT}/scripts/server.sh")
    )
    base = Path(f"/tmp/searchain-test-{uuid.uuid4().hex[:8]}")  # the postgres user reaches it
    env = env_for(server, KEY, SERVER_BASE=str(base))  # the LLM server's key, as its owner set
    for name in ("DATABASE_URL", "SEARCHAIN_LLM", "SEARCHAIN_READER", "SEARCHAIN_INDEX"):
        env.pop(name, None)
    try:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        url = done.stdout.strip().splitlines()[-1]
        assert url.startswith("http://127.0.0.1:")
        assert "reader: llm (auto: torch and transformers not installed" in done.stderr
        run = asyncio.run(ask(url, key))
        assert isinstance(run.get("answer"), str) and run.get("rounds", 0) >= 1, run
    finally:
        subprocess.run(
            [str(ROOT / "scripts" / "server.sh"), "stop"], env=env, capture_output=True, timeout=300
        )
        shutil.rmtree(base, ignore_errors=True)


async def ask(url: str, key: str) -> dict:
    """One question on a new thread, through the sdk, as docs/server.md's "Use it" asks."""
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=key)
    thread = await client.threads.create()
    question = "Lorenzo Monaco was influenced by which Italian painter and architect?"
    return await client.runs.wait(
        thread["thread_id"], "searchain", input={"question": question}, context={"r_max": 1}
    )
