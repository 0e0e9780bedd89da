"""Docs are code, shell too: every command of README.md and docs/ that needs no server runs.

The pages' shell lines run in order, page after page, in one scratch directory (so `ask` makes
the thread that `show` and `edit` read), as a reader pastes them from the repository root: the
venv's commands first on PATH, `scripts/` beside them, the real offline model and the shared data.
What a reader fills in is filled in here, and nothing else changes: a placeholder (`DIR`,
`QUESTION`, `SPEC`, ...) gets a value, an optional `[--flag value]` is passed and `[a|b]` takes `a`;
`eval` runs one question (`--limit 1`, as `run_table1.sh`'s LIMIT) so a page's run of 30 questions
costs seconds, and the costliest searches run at their narrowest (NARROW): every method at its
defaults on the real model is tests/integration/test_every_method.py's. The lines left out are
each named with the reason (a server, or hours of runs).
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from searchain import demo_corpus
from tests.conftest import ROOT
from tests.integration.test_docs import NARROW, PAGES, blocks
from tests.server import write_script

INDEX = ".searchain/demo-index"
FRESH = itertools.count()
STEP_1 = "[Query 1]: Who influenced Lorenzo Monaco?\n[Answer 1]: Giotto"
CTRL_C = 'searchain ask "QUESTION" --index DIR --thread t1'
"""The line whose reader presses Ctrl-C (docs/conversations.md), which `resume t1` continues."""
QUESTION = "Lorenzo Monaco was influenced by which Italian painter and architect?"

NOT_RUN = {
    r"^make (demo|test)\b": "the README's set-up: `make test` is this suite; `make demo` is the "
    "index and ask lines of the README's next block, run here",
    r"^scripts/run_table1\.sh runs/(local )?": "every method of Table 1 (hours with the local "
    "model); docs/methods.md's METHODS line runs the same script here",
    r"^export ES_": "a cluster of the reader's own",
    r"--backend elasticsearch": "needs an Elasticsearch server",
    r"langgraph dev": "starts a server (tests/integration/test_studio.py serves it)",
    r"^cat > keys\.toml": "the key file (test_docs checks the one it writes)",
    r"scripts/server\.sh start": "starts the team server (tests/integration/test_server.py)",
    r"^scripts/chat\.sh start": "starts Agent Chat UI in front of a running server "
    "(tests/integration/test_chat_ui.py)",
}
"""A line matching the pattern is not run here, for the reason given."""


def shell_lines() -> list[tuple[str, str]]:
    """``(page, line)`` of every command in the pages' bash blocks, comments dropped."""
    found = []
    for page in PAGES:
        for block in blocks(page, "bash"):
            heredoc = None
            for line in block.replace("\\\n", " ").splitlines():
                if heredoc:
                    heredoc = None if line.strip() == heredoc else heredoc
                    continue
                if match := re.search(r"<<'?(\w+)'?", line):
                    heredoc = match.group(1)
                command = re.sub(r"(^|\s)#.*$", "", line).strip()
                if command:
                    found.append((page.name, re.sub(r"\s+", " ", command)))
    return found


def fill(words: list[str], script: Path) -> list[str]:
    """``words`` with each placeholder given the value a reader would give it."""
    command = words[1] if words[0] == "searchain" else words[0]
    values = {
        "CORPUS.jsonl": str(demo_corpus()),
        "QUESTION": QUESTION,
        "A FOLLOW-UP": "Where was he born?",
        "TASK": "qa",
        "θ": "0.5",
        "DB": ".searchain/threads.sqlite",
        "T": "planned",  # a thread the scripted model plans, so its step 1 surely exists
        "THREAD": "waiting" if command == "resume" else "planned",  # resume: a paused thread
        "NODE": "1",
        "TEXT": "Toronto",
        "FILE": "answer.html",
        "FILE.jsonl": "cli.jsonl",
        "FILE.jsonl...": "cli.jsonl",
        "B": "embedded",
        "N": "1",
        "PATH...": "docs",
        "README.md": "README.md",  # a file, not a placeholder
    }
    by_flag = {  # a placeholder whose value depends on its flag
        # `index --index DIR` makes a new index, as a reader names a new directory
        "DIR": {"--index": f"new-{next(FRESH)}" if command == "index" else INDEX}
        | {"--verify": INDEX, "--out": "report"},
        "SPEC": {"--llm": f"scripted:{script}" if command == "ask" else "local", "--reader": "llm"},
        "NAME": {"--dataset": "musique", "--method": "direct"},
        "GLOB": {"--include": "*.md", "--exclude": "chat.md"},
    }
    filled = []
    for word in words:
        word = word.removeprefix("[").removesuffix("]").split("|")[0]
        if word in by_flag:
            word = by_flag[word][filled[-1]]
        elif word in values:
            word = values[word]
        else:  # an upper-case word the table does not know is a placeholder it lacks
            assert not re.fullmatch(r"[A-Z][A-Z.\- ]+(\.\w+)?", word), f"no value for {word!r}"
        filled.append(word)
    return filled


def one_question(words: list[str]) -> list[str]:
    """An `eval` of one question, a `calibrate` of one a data set, `run_table1.sh` of LIMIT 1."""
    if words[:2] in (["searchain", "eval"], ["searchain", "calibrate"]):
        if "--limit" in words:
            return [*words[: words.index("--limit") + 1], "1", *words[words.index("--limit") + 2 :]]
        return [*words, "--limit", "1"]
    if words[0] == "scripts/run_table1.sh":
        return [*words[:4], "1", *words[5:]]
    return words


def runnable() -> list[tuple[str, str]]:
    return [
        (page, line)
        for page, line in shell_lines()
        if not any(re.search(pattern, line) for pattern in NOT_RUN)
    ]


def test_only_the_lines_that_need_a_server_or_hours_are_left_out():
    every = shell_lines()
    left_out = {line for _, line in every} - {line for _, line in runnable()}
    assert len(runnable()) >= 25 and len(left_out) <= 13, left_out
    for pattern in NOT_RUN:  # no reason outlives its line
        assert any(re.search(pattern, line) for line in left_out), pattern


def test_every_command_of_the_docs_runs_where_make_demo_installs(
    tmp_path, local_llm_available, shared_data, demo_environment
):
    """Issue 66: each runs in `make demo`'s environment (local and openai, no PyTorch): it
    succeeds, or it needs an extra the page names beside it and says so in one line. Issue 33:
    each documented command, filled in, exits 0 and writes what it says it writes; a line
    refused for an extra runs again, in the same folder, where every extra is installed (the
    test environment), and must succeed there."""
    refused = run_pages(tmp_path, demo_environment, shared_data)
    for page, line, extra in refused:
        text = (ROOT / ("README.md" if page == "README.md" else f"docs/{page}")).read_text()
        assert f"searchain[{extra}]" in text or f"`{extra}` extra" in text, (page, line, extra)
    assert len(refused) <= 3, refused
    again = {(page, line) for page, line, _ in refused}
    assert run_pages(tmp_path, Path(sys.prefix), shared_data, lines=again) == []
    assert (tmp_path / "work" / "runs" / "few" / "report" / "report.md").is_file()
    assert len(list((tmp_path / "work" / "runs" / "few").glob("*.jsonl"))) == 2


def test_the_readmes_commands_run_where_a_plain_pip_install_puts_them(
    tmp_path, shared_data, plain_environment
):
    """README: "`pip install searchain` installs the graphs, the embedded BM25 index and the CLI
    … a command that needs one that is missing says which in one line". Its tour, followed in
    an environment with no extra: the index is built, and each command that needs the local
    model or another extra is refused in one line naming it, an extra of README's table."""
    refused = run_pages(tmp_path, plain_environment, shared_data, pages=("README.md",))
    table = (ROOT / "README.md").read_text(encoding="utf-8")
    assert refused, "with no extra, the tour's asks need the local model"
    for _, line, extra in refused:
        assert f"| `{extra}` |" in table, (line, extra)
    assert (tmp_path / "work" / ".searchain" / "demo-index").exists()  # built with no extra


MISSING_EXTRA = re.compile(r"^error: .*pip install '?searchain\[(\w+)\]", re.M)


def run_pages(
    tmp_path: Path,
    venv: Path,
    shared_data: Path,
    pages: tuple[str, ...] = (),
    lines: set[tuple[str, str]] | None = None,
) -> list[tuple[str, str, str]]:
    """Run every runnable line (of ``pages``, when given; only ``lines``, when given) with
    ``venv``'s commands first on PATH, in one scratch folder (kept from an earlier call).

    Returns ``(page, line, extra)`` for each line refused in one line for a missing extra; any
    other failure fails the test.
    """
    work = tmp_path / "work"
    if not work.exists():
        work.mkdir()
        for shared in ("scripts", "README.md", "docs"):  # what the commands read from the checkout
            (work / shared).symlink_to(ROOT / shared)
    (work / ".venv").unlink(missing_ok=True)
    (work / ".venv").symlink_to(venv)
    two_steps = f"{STEP_1}\n[Query 2]: What was Giotto besides a painter?\n[Answer 2]: an architect"
    script = write_script(tmp_path / "script.json", chains=[two_steps])  # docs edit step 1
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SEARCHAIN_", "OPENAI_"))},
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "SEARCHAIN_DATA_DIR": str(shared_data),
        **NARROW,
    }
    refused = []
    for page, line in runnable():
        if (pages and page not in pages) or (lines is not None and (page, line) not in lines):
            continue
        words = shlex.split(line)
        assignments = {}
        while re.fullmatch(r"[A-Z_]+=.*", words[0]):
            name, _, value = words.pop(0).partition("=")
            assignments[name] = value
        words = one_question(fill(words, script))
        said = f"{page}: {line}\nran: {shlex.join(words)}\n"
        if line == CTRL_C:
            press_ctrl_c(words, work, env, tmp_path, said)
            continue
        if words[:3] == ["searchain", "resume", "waiting"]:
            pause_for_approval(work, env, tmp_path)
        done = subprocess.run(
            words, cwd=work, env=env | assignments, capture_output=True, text=True, timeout=900
        )
        said += f"{done.stdout[-2000:]}{done.stderr}"
        if done.returncode != 0 and (missing := MISSING_EXTRA.search(done.stderr)):
            assert len(done.stderr.strip().splitlines()) == 1, said  # one line, naming it
            refused.append((page, line, missing.group(1)))
            continue
        assert done.returncode == 0, said
        assert (done.stdout + done.stderr).strip(), said  # every command says what it did
        for flag in ("--html", "--out"):
            if flag in words:
                assert (work / words[words.index(flag) + 1]).exists(), said
    return refused


def press_ctrl_c(words: list[str], work: Path, env: dict, tmp_path: Path, said: str) -> None:
    """Run ``words`` with a model held inside its first call, and press Ctrl-C there."""
    log, release = tmp_path / "held.log", tmp_path / "held.release"
    held = {"log": str(log), "hold_from": 1, "release": str(release)}
    script = write_script(tmp_path / "held.json", chains=[STEP_1], **held)
    run = subprocess.Popen(
        words,
        cwd=work,
        env=env | {"SEARCHAIN_LLM": f"scripted:{script}"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 600
    while not (log.is_file() and log.read_text().strip()):  # the first call has begun
        assert run.poll() is None and time.monotonic() < deadline, said + run.stderr.read()
        time.sleep(0.1)
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 130, said + stderr
    assert f"searchain resume {words[words.index('--thread') + 1]}" in stderr, said + stderr
    release.touch()  # the documented `resume` runs the model freely


def pause_for_approval(work: Path, env: dict, tmp_path: Path) -> None:
    """Thread ``waiting``: the reader confidently disagrees with the plan, and a person is asked."""
    script = write_script(tmp_path / "disagree.json", chains=[STEP_1.replace("Giotto", "Cimabue")])
    done = subprocess.run(
        [
            *("searchain", "ask", QUESTION, "--index", INDEX, "--llm", f"scripted:{script}"),
            *("--reader", "llm", "--approve-corrections", "--thread", "waiting"),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0 and "--approve" in done.stdout + done.stderr, done.stderr
