"""Docs are code: every Python block of README.md and docs/ runs, as a reader pastes them.

README's tour runs first; each page of docs/ then runs in a copy of the tour's namespace (its
blocks use the tour's `context`, `build_graph` and demo index), in a scratch directory with the
real offline model, the demo corpus, a real PostgreSQL database and the team server: in `make
demo`'s environment, and a page that needs a package it lacks again in the test environment.
Every link between the pages leads to a file that exists.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from searchain import demo_corpus
from tests.conftest import ROOT
from tests.doc_blocks import blocks, facts, run_page

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


NARROW = {
    "SEARCHAIN_TOT_SAMPLES": "1",
    "SEARCHAIN_TOT_BREADTH": "1",
    "SEARCHAIN_IRCOT_MAX_STEPS": "2",
    "SEARCHAIN_IRCOT_PROMPT_TOKENS": "500",
    "SEARCHAIN_ONER_K": "4",
}
"""The settings the pages' commands and Python blocks run with where a page leaves them unset:
Tree-of-Thought with one sample and one chain a step, IRCoT two steps and a sixth of its prompt
(the demonstrations that fit 500 tokens), OneR four paragraphs. Each still runs every part of
its method on the real model, whose time goes to reading long prompts; every method at its
defaults on the real model is tests/integration/test_every_method.py's."""


def test_the_docs_have_no_placeholders():
    assert len(PAGES) >= 6 and len(blocks(PAGES[0])) >= 1
    every = [block for page in PAGES for block in blocks(page)]
    assert len(every) >= 5
    for block in every:
        assert "..." not in block and "my_" not in block and "DIR" not in block, block


def test_every_link_between_the_pages_leads_somewhere():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


@pytest.mark.parametrize("script", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_every_benchmark_runs_as_documented(script, tmp_path):
    """Issue 33, case 2: `python benchmarks/traversal.py` failed with "No module named 'tests'"
    (run from anywhere, as docs/ cite them: the interpreter, the script's path, --help)."""
    done = subprocess.run(
        [sys.executable, str(script), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout  # it parsed --help, it did not run


def documented_commands() -> list[tuple[str, str, list[str]]]:
    """``(page, subcommand, flags)`` of every `searchain` command in the pages' shell blocks."""
    found = []
    for page in PAGES:
        for block in blocks(page, "bash"):
            for line in block.replace("\\\n", " ").splitlines():
                words = line.split("#")[0].split()
                if not words or Path(words[0]).name != "searchain":
                    continue
                flags = [
                    flag.split("=")[0]
                    for word in words[2:]
                    for flag in re.findall(r"--[a-z][a-z0-9-]*", word)
                ]
                found.append((page.name, words[1], flags))
    return found


def test_every_documented_command_and_flag_exists():
    """Issue 33: the docs' commands, as written, name commands and options the CLI has."""
    commands = documented_commands()
    assert len(commands) >= 20
    helps: dict[str, str] = {}
    for page, command, flags in commands:
        if command not in helps:
            done = subprocess.run(
                [sys.executable, "-m", "searchain", command, "--help"],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, (page, command, done.stderr)
            helps[command] = done.stdout
        for flag in flags:
            assert re.search(rf"{re.escape(flag)}\b", helps[command]), (page, command, flag)


def test_the_scripts_the_docs_run_exist():
    for page in PAGES:
        for script in re.findall(r"\bscripts/[a-z_0-9]+\.(?:sh|py)", page.read_text()):
            path = ROOT / script
            assert path.is_file(), (page.name, script)
            assert script.endswith(".py") or os.access(path, os.X_OK), (page.name, script)


def test_the_docs_key_file_is_a_working_key_file(tmp_path):
    from searchain.server.keys import parse_keys

    (toml,) = [block for block in blocks(ROOT / "docs" / "server.md", "toml")]
    path = tmp_path / "keys.toml"
    path.write_text(toml, encoding="utf-8")
    assert sorted(parse_keys(path).values()) == ["alice", "bob"]


def test_the_readme_prompt_file_is_a_working_prompt_file(tmp_path):
    from searchain.context import Context

    (toml,) = [block for block in blocks(ROOT / "docs" / "python.md", "toml")]
    path = tmp_path / "my_prompts.toml"
    path.write_text(toml, encoding="utf-8")
    ctx = Context(prompts=str(path), task="trivia")
    assert (
        ctx.task_prompt()
        .prompt("Who painted it?")
        .endswith('[Question]: "Who painted it? (one short answer)"')
    )
    assert ctx.task_prompt("slot").answer_labels == ()


def run(page: Path, namespace: dict) -> None:
    """Run ``page``'s Python blocks in order in ``namespace``; fail naming the block."""
    report = run_page(page, namespace)
    assert report["error"] is None, f"{page.name} python block {report['ran'] + 1}: {report}"


PAGE_INSTALLS = {
    "psycopg": ("searchain[postgres]",),
    "langgraph.checkpoint.postgres": ("searchain[postgres]",),
    "langgraph_sdk": ("langgraph-sdk",),
    "mcp": ("mcp",),
}
"""A package `make demo` does not install that a block may import, with what its page may tell
the reader to install for it (`pip install ...` on the page); any other missing module fails."""


FACTS = {
    "answer": 'result["answer"]',
    "references": '[[ref.id, ref.text] for ref in result["references"]]',
    "question": 'state.values["question"]',
    "ircot_ids": '[p.id for p in ircot["paragraphs"]]',
}
"""What the blocks made, read where they ran (tests/doc_blocks.py's ``--facts``)."""


def test_every_python_block_runs_where_make_demo_installs(
    tmp_path, monkeypatch, capsys, local_llm_available, postgres_db, deployment, demo_environment
):
    """Issue 66: the pages' Python blocks run in `make demo`'s environment (tests/doc_blocks.py,
    the tour first): a page's blocks run, or the first that cannot imports a package the page
    says to install. Such a page runs again here, after the tour, where every extra is installed
    (the test environment), and must run whole. What the blocks made and printed is real output
    of the demo corpus, PostgreSQL and the team server. Settings a block leaves unset are
    NARROW's, as the pages' commands run."""
    import json

    from tests.server import KEYS

    settings = {
        **NARROW,
        "DATABASE_URL": postgres_db,
        "SEARCHAIN_SERVER_URL": deployment.url,  # docs/server.md's blocks talk to it
        "SEARCHAIN_API_KEY": KEYS["alice"],
    }
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPENAI_API_KEY")}
    demo, full = tmp_path / "demo", tmp_path / "full"
    demo.mkdir(), full.mkdir()
    python, runner = demo_environment / "bin" / "python", ROOT / "tests" / "doc_blocks.py"
    report_file, facts_file = demo / "report.jsonl", demo / "facts.json"
    facts_file.write_text(json.dumps(FACTS))
    args = [str(report_file), "--facts", str(facts_file), *map(str, PAGES)]
    done = subprocess.run(
        [str(python), "-P", str(runner), *args],
        cwd=demo,
        env=env | settings,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(line) for line in report_file.read_text().splitlines()]
    assert [r["page"] for r in reports] == [page.name for page in PAGES]
    assert reports[0]["error"] is None, reports[0]  # the README's tour, as `make demo` installs
    refused = []
    for page, report in zip(PAGES, reports, strict=True):
        if report["error"] is None:
            assert report["ran"] == len(blocks(page))
            continue
        installs = PAGE_INSTALLS.get(report["missing"] or "")
        assert installs, report  # failed, and not for a package the reader is told to install
        text = " ".join(page.read_text(encoding="utf-8").split())
        said = [name for name in installs if re.search(rf"pip install '?{re.escape(name)}", text)]
        assert said, f"{page.name} never says to install {' or '.join(installs)}: {report}"
        refused.append(page)
    assert len(refused) <= len(PAGES) - 6, reports
    made = json.loads(facts_file.read_text())

    monkeypatch.chdir(full)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    tour: dict = {"__name__": "__readme__"}
    if refused:
        run(PAGES[0], tour)
    for page in refused:
        pasted = dict(tour)  # each page continues the tour, not another page
        run(page, pasted)
        made |= {k: v for k, v in facts(FACTS, pasted).items() if v is not None}
    printed = done.stdout + capsys.readouterr().out

    corpus = {p["id"]: p for p in map(json.loads, demo_corpus().read_text().splitlines()) if p}
    assert isinstance(made["answer"], str)
    references = made["references"]
    assert references is not None and all(corpus[r]["text"] == text for r, text in references)
    assert (made["question"] or "").startswith("Lorenzo Monaco")  # read back from PostgreSQL
    assert made["ircot_ids"] is not None and set(made["ircot_ids"]) <= corpus.keys()
    assert "Answer:" in printed  # the tool's text
    # The server's answers (its scripted model says Giotto), through the sdk, RemoteGraph, MCP.
    assert "Giotto ['Who influenced Lorenzo Monaco?']" in printed
    assert "Answer: Giotto\n\nHe was influenced by Giotto [1]." in printed
    assert "build_self_ask " in printed and "build_react " in printed  # the baselines ran
