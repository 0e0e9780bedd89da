"""Indexes written by earlier releases. Format 1 (before the compact index): refused in one line
that names ``searchain index --convert``, and converted into what a fresh build of the same
passages writes. Format 2 (the compact index before the table of passage blocks): read as it is,
and updated into this release's format.

``tests/data/legacy/demo-index`` is a corpus index of format 1 (the demo corpus, written by
0.1); ``docs-index`` a documents index of ``tests/data/legacy/docs``, written by the last release
of format 1 (``searchain index tests/data/legacy/docs``). ``tests/data/legacy/format2`` holds the
same two written by the last release of format 2 (``searchain index --demo``, and of the docs).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from searchain import demo_corpus
from searchain.documents.collection import Documents
from searchain.tools.retrieval.bm25 import FORMAT, BM25Index, IndexLoadError
from searchain.tools.retrieval.convert import convert
from searchain.tools.retrieval.corpus import read_corpus
from searchain.tools.retrieval.update import update
from tests.conftest import cli_line

LEGACY = Path(__file__).resolve().parents[2] / "data" / "legacy"
QUERIES = ["Who influenced Lorenzo Monaco?", "Where was Kevin Drew born?", "zzzqx", "the"]


def test_an_index_of_the_earlier_format_is_refused_with_the_command_that_converts_it(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(LEGACY / "demo-index", old)
    with pytest.raises(IndexLoadError) as refused:
        BM25Index.load(old)
    assert str(refused.value) == (
        f"{old} was written by an earlier searchain (index format 1): convert it with "
        f"searchain.tools.retrieval.convert.convert({old})"
    )
    assert cli_line(refused.value).endswith(f"convert it with `searchain index --convert {old}`")
    with pytest.raises(IndexLoadError, match="convert it with"):
        BM25Index.verify(old)
    assert (old / "passages.jsonl").is_file()  # refused, untouched


def test_a_converted_corpus_index_is_what_a_fresh_build_writes(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(LEGACY / "demo-index", old)
    converted = convert(old)
    fresh = BM25Index.build(read_corpus(demo_corpus()), tmp_path / "fresh")
    assert converted.manifest["format"] == fresh.manifest["format"] == FORMAT
    assert converted.manifest["files"] == fresh.manifest["files"]  # byte for byte
    assert BM25Index.load(old).search_batch(QUERIES, 5) == fresh.search_batch(QUERIES, 5)
    assert "every checksum matches" in BM25Index.verify(old)
    with pytest.raises(
        ValueError, match=f"is in index format {FORMAT}, which this searchain reads: nothing to"
    ):
        convert(old)


def test_an_index_of_format_2_is_read_as_it_is(tmp_path):
    """Every passage, score and checksum as a fresh build's; nothing to convert."""
    old = tmp_path / "old"
    shutil.copytree(LEGACY / "format2" / "demo-index", old)
    assert not (old / "passages.firsts.npy").exists()
    index = BM25Index.load(old)
    fresh = BM25Index.build(read_corpus(demo_corpus()), tmp_path / "fresh")
    assert index.search_batch(QUERIES, 5) == fresh.search_batch(QUERIES, 5)
    assert [index.passage(i) for i in range(len(index))] == [
        fresh.passage(i) for i in range(len(fresh))
    ]
    assert "every checksum matches" in BM25Index.verify(old)
    with pytest.raises(ValueError, match="is in index format 2, which this searchain reads"):
        convert(old)


def test_a_documents_index_of_format_2_updates_into_this_format(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(LEGACY / "docs", docs)
    old = tmp_path / "old"
    shutil.copytree(LEGACY / "format2" / "docs-index", old)
    manifest = json.loads((old / "searchain-index.json").read_text())
    manifest["documents"] |= {"root": str(docs), "paths": [str(docs)]}  # where they are now
    (old / "searchain-index.json").write_text(json.dumps(manifest))
    (docs / "new.md").write_text("# Sculptors\n\nDonatello worked in Florence.\n")
    updated, _, changes = update(old, Documents.again)
    assert changes.added == 1 and updated.manifest["format"] == FORMAT
    fresh = BM25Index.build(Documents([docs]), tmp_path / "fresh")
    assert [updated.passage(i) for i in range(len(updated))] == [
        fresh.passage(i) for i in range(len(fresh))
    ]
    assert updated.search_batch(QUERIES, 5) == fresh.search_batch(QUERIES, 5)
    assert "every checksum matches" in BM25Index.verify(old)


def test_a_converted_documents_index_keeps_its_documents_and_updates(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(LEGACY / "docs", docs)
    old = tmp_path / "old"
    shutil.copytree(LEGACY / "docs-index", old)
    manifest = json.loads((old / "searchain-index.json").read_text())
    manifest["documents"] |= {"root": str(docs), "paths": [str(docs)]}  # where they are now
    (old / "searchain-index.json").write_text(json.dumps(manifest))
    converted = convert(old)
    fresh = BM25Index.build(Documents([docs]), tmp_path / "fresh")
    assert converted.manifest["documents"] == fresh.manifest["documents"]
    assert converted.manifest["files"] == fresh.manifest["files"]
    hits = BM25Index.load(old).search("Who influenced Lorenzo Monaco?", 1)
    assert hits[0].source is not None and hits[0].source.path == "painters.md"
    (docs / "chapels.txt").unlink()
    (docs / "new.md").write_text("# Sculptors\n\nDonatello worked in Florence.\n")
    updated, _, changes = update(old, Documents.again)
    assert (changes.added, changes.removed) == (1, 1)
    assert updated.search("Donatello", 1)[0].source.path == "new.md"


def test_what_cannot_be_converted_is_said_in_one_line(tmp_path):
    with pytest.raises(IndexLoadError, match=r"is not a searchain index .*nothing to convert"):
        convert(tmp_path)
    future = tmp_path / "future"
    shutil.copytree(LEGACY / "demo-index", future)
    manifest = json.loads((future / "searchain-index.json").read_text())
    (future / "searchain-index.json").write_text(json.dumps({**manifest, "format": 9}))
    with pytest.raises(IndexLoadError, match="index format 9, which this searchain cannot"):
        convert(future)
    # Only the integer 1 is format 1, and only 2 and 3 are read.
    for neighbour in (True, 1.0, "1", 2.0, "2", 3.0, "3", 4, 0, -1, None):
        (future / "searchain-index.json").write_text(json.dumps({**manifest, "format": neighbour}))
        with pytest.raises(IndexLoadError, match="which this searchain cannot convert"):
            convert(future)
        with pytest.raises(IndexLoadError, match=r"rebuild it with BM25Index.build\(") as no:
            BM25Index.load(future)
        assert "rebuild it with `searchain index CORPUS.jsonl --index" in cli_line(no.value)
    (future / "searchain-index.json").write_text("[1]")
    with pytest.raises(IndexLoadError, match=r"None \(not a format number\)"):
        BM25Index.load(future)
    torn = tmp_path / "torn"
    shutil.copytree(LEGACY / "demo-index", torn)
    with (torn / "passages.jsonl").open("r+b") as lines:
        lines.seek(100)
        lines.write(b"#")
    with pytest.raises(IndexLoadError, match=r"damaged searchain index .*passages.jsonl"):
        convert(torn)
    assert (torn / "passages.jsonl").is_file() and not (torn / "bm25" / "postings.bin").exists()
