"""The index's atomic replacement: its own siblings only, one generation kept, fsynced first."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.directory import files as index_files
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from tests.unit.retrieval.test_bm25 import CORPUS, write_corpus


def build(tmp_path: Path, name: str, rows: list = CORPUS) -> BM25Index:
    corpus = write_corpus(tmp_path / f"{name}.jsonl", rows)
    return embedded.build(read_corpus(corpus), tmp_path / name, embedded.Options(overwrite=True))


def test_publishing_an_index_leaves_a_siblings_build_alone(tmp_path):
    """Issue 30, case 7: publishing `wiki` swept `.wiki.big.<stamp>.tmp`, the in-progress build of
    the index `wiki.big` (the sweep's prefix `.wiki.` matched it)."""
    in_progress = index_files.new_version(tmp_path / "wiki.big")
    (in_progress / "half-written").write_bytes(b"x" * 100)
    build(tmp_path, "wiki")
    build(tmp_path, "wiki")  # a replacement sweeps too
    assert (in_progress / "half-written").read_bytes() == b"x" * 100


def test_the_replaced_version_is_kept_one_generation(tmp_path):
    """A reader that resolved the old link just before the switch can still open its files."""
    first = build(tmp_path, "wiki").path
    second = build(tmp_path, "wiki").path
    assert first.is_dir() and second.is_dir()  # the replaced one stays, for late readers
    assert len(BM25Index.load(first)) == len(CORPUS)
    third = build(tmp_path, "wiki").path
    assert not first.exists() and second.is_dir() and third.is_dir()
    versions = [p for p in tmp_path.iterdir() if p.name.startswith(".wiki.")]
    assert sorted(versions) == sorted([second, third])


def test_files_and_directories_reach_the_disk_before_the_rename(tmp_path, monkeypatch):
    """Without fsync, a power loss after the rename can leave a published index of empty files."""
    events: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def counted_fsync(descriptor: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}")))
        fsync(descriptor)

    def counted_replace(source, target) -> None:
        events.append(("replace", str(target)))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", counted_fsync)
    monkeypatch.setattr(os, "replace", counted_replace)
    index = build(tmp_path, "wiki")
    switch = events.index(("replace", str(tmp_path / "wiki")))
    synced = {path for kind, path in events[:switch] if kind == "fsync"}
    files = list(index.path.rglob("*"))
    assert len(files) >= 4
    # Every file of the version, read by its name before the rename to its final name.
    names_synced = {Path(s).relative_to(tmp_path).parts[1:] for s in synced if Path(s) != tmp_path}
    for file in files:
        assert file.relative_to(index.path).parts in names_synced, file
    assert () in names_synced  # the version's directory itself
    assert str(tmp_path) in synced  # the directory holding the new version's name
    assert ("fsync", str(tmp_path)) in events[switch:]  # and the switched link


def test_republishing_while_readers_load_and_search_never_fails_them(tmp_path):
    """200 republishes while 4 threads open the index and search it in a loop: 0 failures."""
    build(tmp_path, "wiki")
    stop = threading.Event()
    failures: list[BaseException] = []
    searches = [0] * 4

    def reader(slot: int) -> None:
        while not stop.is_set():
            try:
                index = BM25Index.load(tmp_path / "wiki")
                (hit,) = index.search("Kevin Drew born", k=1)
                assert hit.id == "p2"
                searches[slot] += 1
            except BaseException as exc:  # every failure is the finding
                failures.append(exc)
                return

    threads = [threading.Thread(target=reader, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(200):
            build(tmp_path, "wiki")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == []
    assert all(searches)  # every reader really read


def test_a_build_in_progress_is_never_swept(tmp_path):
    """Issue 41, case 8: opening `wiki` while its first build ran called recover(), whose sweep
    removed `.wiki.<stamp>.tmp`, the running build's directory; the build died later with a bare
    FileNotFoundError. Now the build holds a lock: a reader is told the index is not built yet
    and touches nothing, recover() leaves the build's files, a second build is refused."""
    from searchain.types import Passage

    path = tmp_path / "wiki"
    reading, go_on = threading.Event(), threading.Event()

    def passages():
        for row in CORPUS:
            yield Passage(row["id"], row["title"], row["text"])
        reading.set()
        assert go_on.wait(600), "the test never let the build go on"

    built: list = []
    builder = threading.Thread(
        target=lambda: built.append(embedded.build(passages(), path, embedded.Options(workers=0)))
    )
    builder.start()
    try:
        assert reading.wait(600)
        [in_progress] = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        files = sorted(p.name for p in in_progress.rglob("*"))
        with pytest.raises(IndexLoadError, match=r"not built yet: .* is being built by process"):
            BM25Index.load(path)
        index_files.recover(path)
        with pytest.raises(index_files.IndexBusyError, match="is being built by process") as busy:
            embedded.build(read_corpus(write_corpus(tmp_path / "c.jsonl", CORPUS)), path)
        assert "\n" not in str(busy.value)
        assert in_progress.is_dir() and sorted(p.name for p in in_progress.rglob("*")) == files
    finally:
        go_on.set()
        builder.join(600)
    assert len(built) == 1 and len(BM25Index.load(path)) == len(CORPUS)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".wiki.") and
                p.name.endswith((".tmp", ".lock"))]  # fmt: skip


def test_leftovers_of_a_dead_build_are_still_swept(tmp_path):
    """The lock dies with its process: what a killed build left is removed by the next one."""
    left = index_files.new_version(tmp_path / "wiki")
    (left / "half-written").write_bytes(b"x")
    build(tmp_path, "wiki")
    assert not left.exists()


def _fsyncs_recorded(
    monkeypatch, fails: Callable[[str], bool] = lambda name: False
) -> tuple[list[str], list[str]]:
    """``(synced, failed)``: every path fsynced from now on, and those whose first fsync failed
    (EIO): each path ``fails`` picks, once."""
    synced: list[str] = []
    failed: list[str] = []
    fsync = os.fsync

    def recorded(descriptor: int) -> None:
        name = os.readlink(f"/proc/self/fd/{descriptor}")
        synced.append(name)
        if fails(name) and name not in failed:
            failed.append(name)  # Linux reports a writeback error to one fsync, not the next
            raise OSError(5, "Input/output error")
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", recorded)
    return synced, failed


def test_flushing_sends_each_file_and_tree_to_disk(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    (tree / "inner").mkdir(parents=True)
    for name in ("tree/a", "tree/inner/b", "c", "d"):
        (tmp_path / name).write_bytes(b"x")
    synced, _ = _fsyncs_recorded(monkeypatch)
    with index_files.flushing() as flush:
        flush(tree)
        flush(tmp_path / "c")
    expected = {tree, tree / "inner", tree / "a", tree / "inner" / "b", tmp_path / "c"}
    assert set(map(Path, synced)) == expected  # and not "d", never handed over


def test_a_flush_that_fails_fails_the_block(tmp_path, monkeypatch):
    file = tmp_path / "a"
    file.write_bytes(b"x")
    _fsyncs_recorded(monkeypatch, lambda name: name == str(file))
    with pytest.raises(OSError, match="Input/output error"), index_files.flushing() as flush:
        flush(file)


def test_the_blocks_own_error_is_the_one_raised(tmp_path, monkeypatch):
    file = tmp_path / "a"
    file.write_bytes(b"x")
    _fsyncs_recorded(monkeypatch, lambda name: name == str(file))
    with pytest.raises(KeyError), index_files.flushing() as flush:
        flush(file)
        raise KeyError("what stopped the build")


@pytest.mark.parametrize("part", ["passages.zst", "bm25/postings.bin"])
def test_a_write_error_reported_once_still_fails_the_build(tmp_path, monkeypatch, part):
    """The store and the postings are flushed while the build goes on; an fsync error there
    is reported to that one fsync only, so it must fail the build, not be lost to publish's."""
    corpus = write_corpus(tmp_path / "corpus.jsonl", CORPUS)
    _, failing = _fsyncs_recorded(monkeypatch, lambda name: name.endswith(part))
    with pytest.raises(OSError, match="Input/output error"):
        embedded.build(read_corpus(corpus), tmp_path / "wiki")
    assert failing  # the part was flushed, and failed, once
    assert not (tmp_path / "wiki").exists()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left in (["corpus.jsonl"], [".wiki.lock", "corpus.jsonl"])  # nothing half-written


def test_a_plain_directory_opens_but_is_never_replaced(tmp_path):
    """A copy of an index (a directory, not searchain's link to a version) is searched as it is,
    but neither a build nor an update swaps it out: no single rename could, so it is refused in
    one line before any work, and left as it was."""
    import shutil

    from searchain.documents.collection import Documents
    from searchain.errors import TargetExists
    from searchain.tools.retrieval.embedded.indexer.update import update

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Siena\n\nDuccio painted in Siena.\n")
    built = embedded.build(Documents([docs]), tmp_path / "linked")
    copy = tmp_path / "copy"
    shutil.copytree(built.path, copy)
    assert BM25Index.load(copy).search("Duccio")[0].title == "Siena"
    corpus = read_corpus(write_corpus(tmp_path / "c.jsonl", CORPUS))
    before = {p.name for p in tmp_path.iterdir()}
    with pytest.raises(TargetExists, match=r"copy is a plain directory .*choose another path$"):
        embedded.build(corpus, copy, embedded.Options(overwrite=True))
    (docs / "b.md").write_text("# Padua\n\nGiotto painted in Padua.\n")
    with pytest.raises(TargetExists, match=r"copy is a plain directory"):
        update(copy, Documents.again)
    assert {p.name for p in tmp_path.iterdir()} - before <= {".copy.lock"}  # nothing written
    assert len(BM25Index.load(copy)) == 1
    with pytest.raises(TargetExists, match=r"^\S+ already exists: pass overwrite=True"):
        embedded.build(corpus, copy)  # without overwrite, the refusal it always had


def test_an_open_index_reads_and_checks_its_version_after_it_is_swept(tmp_path):
    """An index opened before two republishes still searches once its version is swept: its
    files are checked through the descriptors opened with it (a reader preempted between the
    open and its first search failed on a version's name that no longer existed)."""
    build(tmp_path, "wiki")
    opened = BM25Index.load(tmp_path / "wiki")  # nothing searched: nothing checked yet
    build(tmp_path, "wiki")
    build(tmp_path, "wiki")
    assert not opened.path.exists()  # swept: two generations on
    (hit,) = opened.search("Kevin Drew born", k=1)
    assert hit.id == "p2" and "Kevin Drew" in hit.text
