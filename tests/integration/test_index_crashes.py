"""Replacing an index survives a crash at any point: the build is killed (SIGKILL) at each of its
file-system steps in turn, and after every kill the index at ``--index`` is the old one or the new
one, never missing or mixed; the next build cleans up after it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from tests.kill_points import KillPoints
from tests.unit.retrieval.test_bm25 import CORPUS, write_corpus

BUILD = """
import tempfile

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus


def run(corpus, index):
    embedded.build(read_corpus(corpus), index, embedded.Options(overwrite=True))


with tempfile.TemporaryDirectory() as warm:
    run(sys.argv[2], warm + "/index")
"""
"""The job killed: replacing the index at ``index`` with a build of ``corpus``."""


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
    with KillPoints(BUILD, tmp_path / "builds.log", str(new_corpus)) as builds:
        for limit in range(1, 200):
            start_from_the_old_index()
            if builds.run(limit, str(new_corpus), str(index))[0] == 0:
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
