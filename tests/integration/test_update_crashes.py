"""50 updates, each SIGKILLed at a file-system step drawn at random (or left to finish): after
every one the index opens, verifies and holds either the documents it held before or the ones
on disk now, never a mix; one last update then writes what a fresh build writes."""

from __future__ import annotations

import json
import random
from pathlib import Path

from searchain.documents.collection import Documents, content_hash
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.embedded.index import BM25Index
from tests.kill_points import KillPoints
from tests.unit.retrieval.test_update import same_index

UPDATE = """
import tempfile
from pathlib import Path

from searchain.documents.collection import Documents
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.embedded.indexer.update import update


def run(index):
    update(index, Documents.again)


with tempfile.TemporaryDirectory() as warm:
    docs = Path(warm, "docs")
    docs.mkdir()
    (docs / "a.md").write_text("# A\\n\\nwarm\\n")
    embedded.build(Documents([docs]), warm + "/index")
    (docs / "b.md").write_text("# B\\n\\nup\\n")
    run(warm + "/index")
"""
"""The job killed: an update of the index at ``index`` from the folders it indexed (the build
crash test's harness, tests/kill_points.py)."""


def on_disk(root: Path) -> set[tuple[str, str]]:
    return {(p.relative_to(root).as_posix(), content_hash(p.read_bytes()))
            for p in root.rglob("*.md")}  # fmt: skip


def held(index: Path) -> set[tuple[str, str]]:
    table = json.loads((BM25Index.load(index).path / "documents.json").read_text())
    return {(d["path"], d["sha256"]) for d in table}


def change(root: Path, rng: random.Random, round_: int) -> None:
    """Edit, add or delete a file, as a week of work does."""
    files = sorted(root.rglob("*.md"))
    what = rng.choice(["edit", "add", "delete"] if len(files) > 3 else ["edit", "add"])
    if what == "edit":
        rng.choice(files).write_text(f"# Edited {round_}\n\nfresco {round_} giotto padua\n")
    elif what == "add":
        (root / f"new{round_}.md").write_text(f"# New {round_}\n\nchapel {round_} siena\n")
    else:
        rng.choice(files).unlink()


def test_updates_killed_at_random_steps_leave_the_old_or_the_new_documents(tmp_path):
    root, index = tmp_path / "docs", tmp_path / "index"
    root.mkdir()
    for i in range(6):
        (root / f"doc{i}.md").write_text(f"# Document {i}\n\nmonaco {i} gothic painter\n")
    embedded.build(Documents([root]), index)
    change(root, random.Random(0), 0)
    with KillPoints(UPDATE, tmp_path / "updates.log") as updates:
        code, steps = updates.run(0, str(index))  # no kill: count the steps a whole update takes
        assert code == 0 and steps is not None
        assert steps >= 10
        rng = random.Random(43)
        before, outcomes = on_disk(root), set()
        for round_ in range(1, 51):
            change(root, rng, round_)
            now = on_disk(root)
            code, _ = updates.run(rng.randint(1, 2 * steps), str(index))  # past its steps: finishes
            assert BM25Index.verify(index).endswith("every checksum matches")
            found = held(index)
            assert found in (before, now), f"round {round_}: a mix of two versions"
            outcomes.add((code, found == now))
            before = found
        assert {(0, True), (-9, False)} <= outcomes  # both kinds of ending were met
        assert updates.run(10 * steps, str(index))[0] == 0  # a last, whole update
    fresh = embedded.build(Documents([root]), tmp_path / "fresh")
    same_index(BM25Index.load(index), fresh)
