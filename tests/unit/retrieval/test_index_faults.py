"""Issue 67, case 2: a byte fault in a large index file crashed batched search (a segmentation
fault), returned no hits, raised a bare IndexError, or silently changed which passages came back.

Every fault in every file of an index, searched one query at a time and in batches (the compiled
kernel), and updated: refused in one line naming the index, or no change at all.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from searchain.documents.collection import Documents
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.embedded.directory.checked import CHUNK
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from searchain.tools.retrieval.embedded.indexer.update import update
from tests.unit.retrieval.test_update import QUERIES, WORDS, write

FILES = (
    "searchain-index.json", "documents.json", "lengths.npy",
    "passages.zst", "passages.blocks.npy", "passages.firsts.npy", "passages.dict",
    *(f"bm25/{name}" for name in (
        "postings.bin", "indptr.npy", "blocks.npy", "block_starts.npy", "block_last.npy",
        "block_peak.npy", "idf.npy", "norm.npy",
        "vocab.hash.npy", "vocab.column.npy", "vocab.offsets.npy", "vocab.terms.bin",
    )),
)  # fmt: skip
"""Every file of a documents index (the test below checks the list is whole)."""
ONE_LINE = ("is a damaged searchain index (", "is not a searchain index", "has index format")
"""How a refusal of a damaged index may begin its reason."""


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, Path, list[str], list]:
    """A documents index (every kind of file an index has) whose postings and passages are
    several MiB (read chunk by chunk), its folder, its files and its answers."""
    base = tmp_path_factory.mktemp("faults")
    pick = random.Random(67)
    vocabulary = [*WORDS, *(f"w{pick.randrange(10**6)}" for _ in range(3000))]
    for i in range(800):
        words = " ".join(pick.choice(vocabulary) for _ in range(1600))
        (base / "docs").mkdir(exist_ok=True)
        (base / "docs" / f"f{i:03}.md").write_text(f"# title {i}\n\n{words}\n")
    index = embedded.build(Documents([base / "docs"], words=12), base / "index")
    names = sorted(str(p.relative_to(index.path)) for p in index.path.rglob("*") if p.is_file())
    for large in ("bm25/postings.bin", "passages.zst"):
        assert (index.path / large).stat().st_size > CHUNK  # two chunks or more
    every = [" ".join(vocabulary[i : i + 10]) for i in range(0, len(vocabulary), 10)]
    return index.path, every, names, answers(index, every)


def answers(index: BM25Index, every: list[str]) -> list:
    """What the index returns: queries alone (NumPy, then the kernel), every term's postings in
    a batch (the kernel), and every passage."""
    alone = [[(p.id, p.score, p.text) for p in index.search(q, 5)] for q in QUERIES]
    batch = [[(p.id, p.score) for p in hits] for hits in index.search_batch(every, 10)]
    return [alone, batch, [index.passage(i).text for i in range(len(index))]]


def refused_in_one_line(error: IndexLoadError, path: Path) -> None:
    message = str(error)
    assert "\n" not in message and message.startswith(str(path)), message
    assert any(said in message for said in ONE_LINE), message


fault = st.tuples(
    st.sampled_from(["flip", "truncate", "extend"]),
    st.floats(0, 1, exclude_max=True),  # where in the file, as a share of its size
    st.integers(1, 255),  # the bits flipped, or the bytes added
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.sampled_from(FILES), change=fault)
@example(name="passages.zst", change=("flip", 0.5, 1))  # changed passages on main, or a bare
@example(name="bm25/postings.bin", change=("flip", 0.5, 1))  # ZstdError; other hits, no word
def test_a_fault_in_any_file_is_refused_in_one_line_or_changes_nothing(
    pristine, tmp_path_factory, name, change
):
    version, every, _, expected = pristine
    path = tmp_path_factory.mktemp("damaged") / "index"
    shutil.copytree(version, path)  # a plain directory opens as an index too
    damage(path / name, *change)
    try:
        index = BM25Index.load(path)
        found = answers(index, every)
    except IndexLoadError as exc:
        refused_in_one_line(exc, path)
    else:
        assert found == expected, (name, change)


def damage(file: Path, kind: str, where: float, amount: int) -> None:
    data = bytearray(file.read_bytes())
    at = int(where * len(data))
    if kind == "flip" and data:
        data[at] ^= amount
    elif kind == "truncate":
        del data[at:]
    else:
        data[at:at] = bytes(amount)
    file.write_bytes(bytes(data))


def test_every_file_is_covered(pristine):
    _, _, names, _ = pristine
    assert names == sorted(FILES)


@pytest.mark.parametrize("where", [0.0, 0.5, 0.99])
def test_an_update_never_gives_damage_fresh_checksums(pristine, tmp_path, where):
    """An update copies the old store's frames and decodes its postings: a fault anywhere in
    the old version is refused before the new one is written, which --verify would then pass."""
    _, _, names, _ = pristine
    for name in names:
        base = tmp_path / name.replace("/", "_")
        write(base / "docs", {f"f{i}": ("md", f"t {i}", " ".join(WORDS * 3)) for i in range(6)})
        index = embedded.build(Documents([base / "docs"], words=12), base / "index")
        damage(index.path / name, "flip", where, 0x41)
        (base / "docs" / "f0.md").write_text("# changed\n\ngiotto drew a new fresco\n")
        with pytest.raises(IndexLoadError) as refused:
            update(base / "index", Documents.again)
        refused_in_one_line(refused.value, base / "index")
        assert (base / "index").resolve() == index.path  # nothing published
        assert sorted(os.listdir(base)) == sorted(["docs", "index", index.path.name])
