"""An updated documents index is the index a fresh build of the same files writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchain.documents.collection import Documents
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import CorpusError
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from searchain.tools.retrieval.embedded.indexer.update import update
from tests.conftest import cli_line

WORDS = (
    "giotto fresco padua chapel monaco siena gothic painter budget march server start keys users"
)
WORDS = [*WORDS.split(), "toronto", "drew", "album", "bus"]
QUERIES = ["giotto fresco", "server start keys", "toronto bus album", "siena gothic painter",
           "budget march", "chapel padua monaco drew"]  # fmt: skip

text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join)
document = st.tuples(st.sampled_from(["md", "txt"]), text, text)
folder = st.dictionaries(st.sampled_from([f"f{i}" for i in range(8)]), document, min_size=1)


def write(root: Path, files: dict) -> None:
    shutil.rmtree(root, ignore_errors=True)
    (root / "sub").mkdir(parents=True)
    for name, (kind, heading, body) in files.items():
        where = root / ("sub" if name in ("f1", "f5") else "") / f"{name}.{kind}"
        where.write_text(f"# {heading}\n\n{body}\n" if kind == "md" else f"{heading}\n{body}\n")


def same_index(updated: BM25Index, fresh: BM25Index) -> None:
    assert [updated.passage(i) for i in range(len(updated))] == [
        fresh.passage(i) for i in range(len(fresh))
    ]
    for query in QUERIES:  # ids and scores, to the bit, in order
        assert [(p.id, p.score) for p in updated.search(query, 10)] == [
            (p.id, p.score) for p in fresh.search(query, 10)
        ]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(before=folder, after=folder)
def test_an_update_writes_what_a_fresh_build_of_the_same_files_writes(tmp_path, before, after):
    root = tmp_path / "docs"
    write(root, before)
    embedded.build(
        Documents([root], words=12), tmp_path / "index", embedded.Options(overwrite=True)
    )
    write(root, after)
    updated, _, changes = update(tmp_path / "index", Documents.again)
    fresh = embedded.build(
        Documents([root], words=12), tmp_path / "fresh", embedded.Options(overwrite=True)
    )
    same_index(updated, fresh)
    assert changes.kept + changes.added + changes.changed == len(after)
    assert BM25Index.verify(tmp_path / "index").endswith("every checksum matches")


def test_an_update_reads_only_what_changed_and_says_what_it_did(tmp_path, monkeypatch):
    root = tmp_path / "docs"
    write(root, {f"f{i}": ("md", f"title {i}", f"body {WORDS[i]}") for i in range(6)})
    embedded.build(Documents([root]), tmp_path / "index")
    (root / "f0.md").write_text("# changed\n\nnew words\n")
    (root / "f2.md").unlink()
    (root / "f7.txt").write_text("an added file\n")
    read = []
    original = Documents.read_file
    monkeypatch.setattr(
        Documents, "read_file", lambda self, rel, *a: read.append(rel) or original(self, rel, *a)
    )
    _, documents, changes = update(tmp_path / "index", Documents.again)
    assert sorted(read) == ["f0.md", "f7.txt"]
    assert str(changes) == "1 added, 1 changed, 1 removed, 4 unchanged"
    assert [d.path for d in documents.indexed] == ["f0.md", "f3.md", "f4.md", "f7.txt",
                                                   "sub/f1.md", "sub/f5.md"]  # fmt: skip


def test_nothing_changed_publishes_nothing(tmp_path):
    root = tmp_path / "docs"
    write(root, {"f0": ("md", "a", "b")})
    index = embedded.build(Documents([root]), tmp_path / "index")
    again, _, changes = update(tmp_path / "index", Documents.again)
    assert not changes.any and again.path == index.path  # the same version directory


def test_every_document_gone_keeps_the_index_and_says_so(tmp_path):
    root = tmp_path / "docs"
    write(root, {"f0": ("md", "a", "b")})
    index = embedded.build(Documents([root]), tmp_path / "index")
    (root / "f0.md").unlink()
    with pytest.raises(CorpusError, match="nothing left to index: every document is gone"):
        update(tmp_path / "index", Documents.again)
    assert BM25Index.load(tmp_path / "index").path == index.path


def test_a_corpus_index_or_other_paths_are_refused(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "a", "title": "", "text": "x"}) + "\n")
    from searchain.tools.retrieval.corpus.readers import read_corpus

    embedded.build(read_corpus(corpus), tmp_path / "corpus-index")
    with pytest.raises(ValueError, match="built from a corpus file, not documents"):
        update(tmp_path / "corpus-index", Documents.again)
    root = tmp_path / "docs"
    write(root, {"f0": ("md", "a", "b")})
    embedded.build(Documents([root]), tmp_path / "index")
    with pytest.raises(ValueError, match=r"update\(\) walks those again") as refused:
        update(tmp_path / "index", Documents.again, paths=[tmp_path])
    assert "--update walks those again" in cli_line(refused.value)


def test_an_index_missing_its_lengths_is_named_damaged(tmp_path):
    root = tmp_path / "docs"
    write(root, {"f0": ("md", "a", "b")})
    index = embedded.build(Documents([root]), tmp_path / "index")
    (index.path / "lengths.npy").unlink()
    with pytest.raises(IndexLoadError, match="damaged searchain index"):
        update(tmp_path / "index", Documents.again)


def test_a_damaged_passage_store_is_named_not_copied_into_the_new_version(tmp_path):
    """An open checks the store's size only: the update checks its bytes before copying its
    blocks, and publishes nothing."""
    root = tmp_path / "docs"
    write(root, {f"f{i}": ("md", f"title {i}", " ".join(WORDS * 3)) for i in range(6)})
    index = embedded.build(Documents([root], words=12), tmp_path / "index")
    store = index.path / "passages.zst"
    data = bytearray(store.read_bytes())
    data[40] ^= 0x20
    store.write_bytes(bytes(data))
    (root / "sub" / "f5.md").write_text("# changed\n\nnew words\n")  # the last: block 0 kept
    with pytest.raises(IndexLoadError, match=r"damaged searchain index \(passages.zst, bytes 0 to"):
        update(tmp_path / "index", Documents.again)
    assert (tmp_path / "index").resolve() == index.path  # the old version still the index
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["docs", "index", index.path.name])


def test_updating_an_index_that_does_not_exist_says_so_not_that_it_is_being_built(tmp_path):
    """It said the index "is being built by process N", naming the update's own process."""
    missing = tmp_path / "never-built"
    with pytest.raises(FileNotFoundError, match=f"there is no index at {missing} to update"):
        update(missing, Documents.again)
    assert not missing.exists() and not (tmp_path / ".never-built.lock").exists()


def test_building_over_a_documents_index_names_update_as_well_as_overwrite(tmp_path):
    """ "already exists: pass --overwrite" never said that --update brings it up to date."""
    write(tmp_path / "docs", {"f0": ("md", "giotto", "fresco padua")})
    embedded.build(Documents([tmp_path / "docs"]), tmp_path / "index")
    with pytest.raises(FileExistsError, match=r"overwrite=True to replace it, or update\(\) to"):
        embedded.build(Documents([tmp_path / "docs"]), tmp_path / "index")
    with pytest.raises(FileExistsError) as refused:
        embedded.build(Documents([tmp_path / "docs"]), tmp_path / "index")
    assert "pass --overwrite to replace it, or --update to" in cli_line(refused.value)
