"""Figures the docs give that the code determines are recomputed here, so they cannot drift.

Timings vary by machine and are only measured (benchmarks/); bytes and counts the code decides
are checked against the sentence that quotes them.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from searchain.cli.render import GUIDED
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


def test_the_checkpoint_bytes_docs_conversations_quotes_are_what_the_code_writes():
    """Issue 42, case 6: the page said 20.6 KiB of checkpoints per question; the code wrote
    32.7 KiB plus 24.0 KiB of pending writes."""
    spec = importlib.util.spec_from_file_location(
        "graph_overhead", ROOT / "benchmarks" / "graph_overhead.py"
    )
    assert spec and spec.loader
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    questions = 20
    _, size, writes = benchmark.sqlite_costs(questions)
    text = " ".join((ROOT / "docs" / "conversations.md").read_text(encoding="utf-8").split())
    quoted = re.search(
        r"--questions (\d+)`.*? take ([\d.]+) KiB of checkpoints plus ([\d.]+) KiB of pending", text
    )
    assert quoted, "docs/conversations.md no longer quotes the checkpoint bytes"
    assert int(quoted[1]) == questions
    # Within 0.2 KiB: a checkpoint's encoded timestamps and ids vary by a few bytes from run to
    # run (32.8 or 32.9 KiB), a drift of the code's making is kilobytes (20.6 against 32.7).
    assert abs(float(quoted[2]) - size / questions / 1024) <= 0.2, size / questions / 1024
    assert abs(float(quoted[3]) - writes / questions / 1024) <= 0.2, writes / questions / 1024


def test_the_readmes_demo_output_is_the_shape_the_cli_prints_today():
    """Issue 42, case 1: the README described a demo that printed `Answer: (none)`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```text\n", 1)[1].split("```", 1)[0]
    assert f"  {GUIDED}\n" in block  # the notice, word for word as the CLI prints it
    assert re.search(r"^  chain of [1-9]\d* quer(y|ies) ", block, re.M)
    assert re.search(r"^\[1\]†? .+ · (does not state|states) its step$", block, re.M)
    assert re.search(r"^Tree-of-Reasoning \(1 round, \w+\)$", block, re.M)
    assert re.search(r"^└── .+ \(llm, conf [\d.]+, \w+, node 0\)$", block, re.M)


def test_the_context_table_names_every_field_and_every_page_links_back():
    """Issue 42, case 8: docs/python.md's table left out `approve_corrections`; docs/server.md
    had no way back to the README."""
    from dataclasses import fields

    from searchain.context import Context

    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1] for line in text.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    assert {f.name for f in fields(Context)} - named == set()
    for page in sorted((ROOT / "docs").glob("*.md")):
        head = page.read_text(encoding="utf-8").split("\n\n", 2)[:2]
        assert "[← README](../README.md)" in "\n".join(head), page.name


def test_the_update_line_docs_documents_prints_is_what_a_run_prints(tmp_path):
    """Issue 66: docs/documents.md's update line gave the counts of an older tree (249 passages,
    12 .png; a run gave 347, 14). The page's own scenario is run here: this project's docs and
    README indexed, then a page edited, one deleted and one added."""
    import shutil

    from tests.integration.test_cli import searchain

    handbook = tmp_path / "handbook"
    shutil.copytree(ROOT / "docs", handbook)
    shutil.copy(ROOT / "README.md", handbook / "README.md")
    built = searchain("index", "handbook", "--index", "handbook-index", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    with (handbook / "chat.md").open("a", encoding="utf-8") as page:
        page.write("\nOne more line about the chat.\n")
    (handbook / "methods.md").unlink()
    (handbook / "new.md").write_text("# A new page\n\nAbout the team server's keys.\n")
    done = searchain("index", "--update", "--index", "handbook-index", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = re.sub(r" in [\d.]+ s;", " in T s;", done.stderr.strip().splitlines()[-1])
    page = (ROOT / "docs" / "documents.md").read_text(encoding="utf-8")
    quoted = re.search(r"^updated handbook-index: .*$", page, re.M)
    assert quoted, "docs/documents.md no longer shows the update line"
    assert re.sub(r" in [\d.]+ s;", " in T s;", quoted[0]) == printed, printed
