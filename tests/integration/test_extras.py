"""Each optional dependency, when missing, is named with the extra that installs it.

The CLI runs in a real process in which the extra's modules cannot be imported, as after a plain
`pip install searchain`; it must exit 1 with one line saying what to install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.integration.test_cli import searchain

RUN_WITHOUT = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None  # `import name` now raises ImportError\n"
    "sys.argv = ['searchain', *sys.argv[2:]]\n"
    "from searchain.cli import main\n"
    "main()\n"
)


def without(modules: str, *args: str, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT, modules, *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=env,
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("extras")
    assert searchain("index", "--demo", "--index", str(root / "index")).returncode == 0
    script = root / "script.json"
    script.write_text(json.dumps({"chains": ["[Query 1]: Who?\n[Answer 1]: Giotto"]}))
    return root, script


ASK = ["ask", "Who influenced Lorenzo Monaco?", "--index", "index"]


@pytest.mark.parametrize(
    ("modules", "args", "extra"),
    [
        (
            "torch,transformers",
            [*ASK, "--llm", "scripted:script.json", "--reader", "dpr"],
            "models",
        ),
        (
            "torch,transformers",
            [*ASK, "--llm", "scripted:script.json", "--reader", "extractive"],
            "models",
        ),
        ("llama_cpp", [*ASK, "--llm", "local", "--reader", "llm"], "local"),
        ("langchain_community", [*ASK, "--llm", "local", "--reader", "llm"], "local"),
        ("langchain_openai", [*ASK, "--llm", "openai:gpt-4o-mini", "--reader", "llm"], "openai"),
        (
            "elasticsearch",
            [*ASK, "--llm", "scripted:script.json", "--backend", "elasticsearch"],
            "elasticsearch",
        ),
        ("psycopg", ["threads", "--db", "postgresql://user@127.0.0.1:1/db"], "postgres"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(demo, modules, args, extra):
    root, _ = demo
    done = without(modules, *args, cwd=root)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'searchain[{extra}]'" in lines[0], done.stderr


def test_a_report_without_matplotlib_is_written_as_text_and_says_so(demo):
    """Issue 33, case 3: without matplotlib `searchain report` wrote nothing, not even
    report.md (and the docs said `make demo` installs it)."""
    root, _ = demo
    config = dict.fromkeys(("p", "u", "seed"))
    config |= {"dataset": "musique", "split": "tune", "method": "oner", "llm": "local"}
    config |= {"reader": "none", "backend": "embedded"}
    line = {"id": "q", "config": config, "metrics": {"cover_em": 1.0}, "rounds": 1, "steps": 1}
    line |= {"usage": {"llm": {"calls": 1, "words_in": 9, "words_out": 3}}, "seconds": 1.0}
    (root / "results.jsonl").write_text(json.dumps(line) + "\n")
    done = without("matplotlib", "report", "results.jsonl", "--out", "text-report", cwd=root)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'searchain[eval]'" in lines[0], done.stderr
    md = (root / "text-report" / "report.md").read_text()
    assert "| oner | musique | tune | local | none | 1 (1% of the split) | 1.000 |" in md
    assert "None drawn: plots need matplotlib: pip install 'searchain[eval]'." in md
    assert not list((root / "text-report").glob("*.png"))


def test_semantic_dedup_names_its_extra(demo):
    root, script = demo
    args = [*ASK, "--reader", "llm", "--llm", f"scripted:{script}"]
    env = {**os.environ, "SEARCHAIN_SEMANTIC_DEDUP": "true"}
    done = without("sentence_transformers", *args, cwd=root, env=env)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'searchain[semantic]'" in lines[0], done.stderr


def test_without_the_models_extra_the_default_reader_is_the_llm_and_the_run_says_so(demo):
    """The default reader was DPR, which `make demo`'s environment (no PyTorch) cannot run: every
    documented `ask` without --reader failed there."""
    root, _ = demo
    done = without("torch,transformers", *ASK, "--llm", "scripted:script.json", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "reader: llm (auto: torch and transformers not installed" in done.stderr
