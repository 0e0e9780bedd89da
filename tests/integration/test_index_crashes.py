"""Replacing an index survives a crash at any point: the build is killed (SIGKILL) at each of its
file-system steps in turn, and after every kill the index at ``--index`` is the old one or the new
one, never missing or mixed; the next build cleans up after it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from tests.unit.retrieval.test_bm25 import CORPUS, write_corpus

# Runs a build that SIGKILLs itself at its N-th file-system change (any directory made, file
# opened for writing, rename, link or removal), as a power cut or `kill -9` would stop it.
KILLED_BUILD = """
import builtins, io, os, signal, sys
limit, corpus, index = int(sys.argv[1]), sys.argv[2], sys.argv[3]
calls = [0]

def step(fn, writes_only=False):
    def wrapped(*args, **kwargs):
        mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
        if not writes_only or any(c in str(mode) for c in "wax+"):
            calls[0] += 1
            if calls[0] == limit:
                os.kill(os.getpid(), signal.SIGKILL)
        return fn(*args, **kwargs)
    return wrapped

for name in ("rename", "replace", "symlink", "unlink", "rmdir", "mkdir"):
    setattr(os, name, step(getattr(os, name)))
builtins.open = io.open = step(builtins.open, writes_only=True)

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
embedded.build(read_corpus(corpus), index, embedded.Options(overwrite=True))
"""


def killed_build(limit: int, corpus: Path, index: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_BUILD, str(limit), str(corpus), str(index)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, -9), done.stderr[-2000:]
    return done.returncode


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_build_killed_at_any_step_leaves_the_old_or_the_new_index(tmp_path):
    old_corpus = write_corpus(tmp_path / "old.jsonl", CORPUS)  # 5 passages
    new_corpus = write_corpus(tmp_path / "new.jsonl", CORPUS[:2])  # 2 passages
    index = tmp_path / "work" / "index"

    def start_from_the_old_index() -> None:
        shutil.rmtree(index.parent, ignore_errors=True)
        embedded.build(read_corpus(old_corpus), index)

    kills = 0
    for limit in range(1, 200):
        start_from_the_old_index()
        if killed_build(limit, new_corpus, index) == 0:
            break  # the build got past its last step: every step has been a kill point
        kills += 1
        try:
            survivor = BM25Index.load(index)
        except IndexLoadError as exc:
            pytest.fail(f"killed at step {limit}: no index at {index} ({exc})")
        assert len(survivor) in (5, 2), limit
        assert survivor.search("Kevin Drew")[0].id in ("p1", "p2")
        embedded.build(
            read_corpus(new_corpus), index, embedded.Options(overwrite=True)
        )  # the rerun finishes
        assert len(BM25Index.load(index)) == 2
        # Nothing left behind but the current version and the one it replaced (kept a
        # generation for late readers): no temporary version or link.
        left = hidden(index.parent)
        assert index.resolve().name in left and len(left) <= 2, left
        assert all(re.fullmatch(r"\.index\.\d+", name) for name in left), left
    print(f"killed at {kills} steps, then completed")
    assert kills >= 10, kills  # the build really was cut at many places
    assert len(BM25Index.load(index)) == 2
    assert BM25Index.verify(index).endswith("every checksum matches")
