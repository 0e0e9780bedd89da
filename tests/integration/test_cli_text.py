"""What the CLI says reads as a person would write it: usage lines, help, counts, listings."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from searchain import __version__
from tests.conftest import ROOT, ScriptedReplies, TableReader, TableRetriever
from tests.integration.test_cli import searchain

pytestmark = pytest.mark.integration


def test_usage_lines_help_and_the_version_name_what_is_taken():
    """Issue 42, case 8: usage lines printed `{question}`; `--help` left out `gguf:PATH`,
    `llm:SPEC`, the int8 readers and a bare model directory, and showed two defaults for
    `--workers`; there was no `--version`."""
    usages = {
        "ask": "Usage: python -m searchain ask [OPTIONS] QUESTION",
        "index": "Usage: python -m searchain index [OPTIONS] [PATH...]",
        "report": "Usage: python -m searchain report [OPTIONS] RESULTS...",
        "edit": "Usage: python -m searchain edit [OPTIONS] THREAD NODE",
        "show": "Usage: python -m searchain show [OPTIONS] THREAD",
        "resume": "Usage: python -m searchain resume [OPTIONS] THREAD",
    }
    for command, usage in usages.items():
        assert searchain(command, "--help").stdout.splitlines()[0] == usage
    missing = searchain("ask")
    assert missing.returncode == 2 and "{" not in missing.stderr
    text = " ".join(searchain("ask", "--help").stdout.split())
    for spec in ("gguf:PATH", "llm:SPEC", "dpr-int8[:DIR]", "extractive-int8[:DIR]", "a model DIR"):
        assert spec in text, spec
    assert "--chain-prompt" in text and "--force" in text
    workers = " ".join(searchain("index", "--help").stdout.split())
    workers = workers.split("--workers", 1)[1].split("--analyzer", 1)[0]
    assert workers.count("default") == 1, workers
    version = searchain("--version")
    assert (version.returncode, version.stdout) == (0, f"searchain {__version__}\n")


def test_counts_are_singular_for_one_and_an_unfinished_tree_says_so(tmp_path):
    """Issue 42, case 8: "chain of 1 queries", "1 references", "indexed 1 passages", and a
    paused run's tree read "(1 round, )"."""
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({"id": "a", "title": "Giotto", "text": "Giotto was born."}) + "\n")
    built = searchain("index", str(corpus), "--index", str(tmp_path / "idx"))
    assert "indexed 1 passage (jsonl)" in built.stderr, built.stderr
    verified = searchain("index", "--verify", str(tmp_path / "idx"))
    assert ": 1 passage, " in verified.stdout + verified.stderr
    script = tmp_path / "s.json"
    chain = "[Query 1]: Where was Giotto born?\n[Answer 1]: Vespignano\n[Final Content]: X [1]."
    script.write_text(json.dumps({"chains": [chain], "trace": "Vespignano [1]."}))
    common = ["--index", str(tmp_path / "idx"), "--llm", f"scripted:{script}", "--reader", "llm"]
    done = searchain("ask", "Where was Giotto born?", *common, "--db", str(tmp_path / "t.sqlite"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "chain of 1 query (1 new)" in done.stderr and "traced, 1 reference\n" in done.stderr
    assert re.search(r"^Tree-of-Reasoning \(1 round, \w+\)$", done.stdout, re.M)


def test_threads_are_listed_newest_first_whoever_made_them(tmp_path):
    """Issue 42, case 8: threads made from Python came after all others whatever their time,
    and ids of other lengths were not padded."""
    from searchain.context import Context
    from searchain.graph.searchain import build_graph
    from searchain.threads import open_checkpointer

    db = tmp_path / "t.sqlite"
    script = tmp_path / "s.json"
    chain = "[Query 1]: Who?\n[Answer 1]: Giotto\n[Final Content]: Giotto [1]."
    script.write_text(json.dumps({"chains": [chain], "trace": "Giotto [1]."}))
    assert searchain("index", "--demo", "--index", str(tmp_path / "idx")).returncode == 0
    common = ["--index", str(tmp_path / "idx"), "--llm", f"scripted:{script}", "--reader", "llm"]
    assert searchain("ask", "First?", *common, "--db", str(db)).returncode == 0
    with open_checkpointer(str(db)) as saver:
        llm = ScriptedReplies(replies=[chain, "Giotto [1]."])
        context = Context(llm=llm, retriever=TableRetriever({}), reader=TableReader({}))
        config = {"configurable": {"thread_id": "from-python-thread"}}
        build_graph(checkpointer=saver).invoke({"question": "Second?"}, config, context=context)
    assert searchain("ask", "Third?", *common, "--db", str(db)).returncode == 0
    listed = searchain("threads", "--db", str(db)).stdout.splitlines()
    assert [line.split()[-1] for line in listed] == ["Third?", "Second?", "First?"]
    columns = {line.index(" 20") for line in listed}  # the dates line up: ids are padded
    assert len(columns) == 1, listed


def test_the_default_index_built_in_a_checkout_is_not_left_untracked():
    """Issue 42, case 8: `searchain index --demo` without `--index` left its folders in
    `git status`."""
    for path in ("searchain-index", ".searchain-index.123", ".searchain/demo-index"):
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", path], cwd=ROOT, capture_output=True, timeout=60
        )
        assert ignored.returncode == 0, path
