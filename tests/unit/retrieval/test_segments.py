"""The out-of-core build: many segments on disk give the very index one in-memory pass gives."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from searchain import demo_corpus
from searchain.eval.datasets import musique_hops, pooled_corpus
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.index import BM25Index
from searchain.tools.retrieval.embedded.indexer import workers
from searchain.tools.retrieval.embedded.postings import compact
from searchain.tools.retrieval.embedded.postings.compact import ARRAYS
from searchain.tools.retrieval.embedded.postings.segments import MemoryBudgetError, parse_size
from searchain.tools.retrieval.embedded.store import passages as passage_store
from searchain.tools.retrieval.embedded.termdict.vocabulary import FILES

POSTINGS = [f"{name}.npy" for name in ARRAYS] + [compact.POSTINGS, compact.NORM]
STORE = [passage_store.STORE, passage_store.BLOCKS, passage_store.DICTIONARY]


@pytest.fixture(scope="module")
def shared_builds(shared_data, tmp_path_factory):
    corpus = pooled_corpus(shared_data)
    root = tmp_path_factory.mktemp("segments")
    stages: list[str] = []
    with pytest.MonkeyPatch.context() as patch:  # every batch to a worker
        patch.setattr(workers, "LOCAL_BATCHES", 0)
        patch.setattr(workers, "WHILE_STARTING", False)
        small = embedded.build(
            corpus, root / "small", embedded.Options(memory=1 << 20, workers=3), stage=stages.append
        )
    whole = embedded.build(corpus, root / "whole", embedded.Options(memory=4 << 30, workers=0))
    return corpus, small, whole, stages


def test_worker_processes_and_a_tiny_budget_build_the_same_index_as_one_pass(
    shared_builds, shared_data
):
    """Three worker processes and many segments give, byte for byte, what one process gives
    with one segment."""
    _, small, whole, stages = shared_builds
    segments = int(stages[0].split(", ")[1].split()[0])
    assert segments >= 3, stages  # the budget forced several segments
    # and the wait for the search kernels (a fresh install compiles them) is said, last
    assert stages[1:] == [
        "checksumming the index files",
        "loading the search kernels (compiled once after an install, then cached)",
    ]
    for name in [*POSTINGS, *FILES]:
        assert (small.path / "bm25" / name).read_bytes() == (
            whole.path / "bm25" / name
        ).read_bytes()
    for name in STORE:
        assert (small.path / name).read_bytes() == (whole.path / name).read_bytes(), name
    assert (whole.path / passage_store.DICTIONARY).stat().st_size > 0  # trained, the same
    queries = [h.question for h in musique_hops(shared_data, "tune")]
    assert small.search_batch(queries, k=5) == whole.search_batch(queries, k=5)
    assert [small.search(q, k=3) for q in queries[:50]] == [
        whole.search(q, k=3) for q in queries[:50]
    ]


def test_a_memory_mapped_index_reads_every_passage_back(shared_builds):
    corpus, small, _, _ = shared_builds
    loaded = BM25Index.load(small.path)
    arrays = [getattr(loaded.postings, name) for name in [*ARRAYS, "data", "norm"]]
    assert all(isinstance(a, np.memmap) for a in arrays)
    assert [loaded.passage(i) for i in range(len(loaded))] == [
        type(p)(p.id, p.title, p.text, 0.0) for p in corpus
    ]
    assert "every checksum matches" in BM25Index.verify(small.path)


@pytest.mark.parametrize(
    ("text", "size"), [("4GiB", 4 << 30), ("512MiB", 512 << 20), ("2G", 2 << 30), ("1500", 1500)]
)
def test_sizes_are_read_as_people_write_them(text, size):
    assert parse_size(text) == size


def test_a_budget_that_is_too_small_or_unreadable_is_one_line(tmp_path):
    with pytest.raises(MemoryBudgetError, match="cannot read the size '4 apples'"):
        parse_size("4 apples")
    with pytest.raises(MemoryBudgetError, match="too small to build an index: give at least 1 MiB"):
        embedded.build([], tmp_path / "index", embedded.Options(memory=1000))
    assert not any(tmp_path.iterdir())  # nothing left behind


@pytest.mark.parametrize("workers", [-1, 2.5, 1.0, True, "2"])
def test_a_worker_count_that_is_not_a_whole_number_from_0_is_refused(tmp_path, workers):
    with pytest.raises(ValueError, match="workers must be a whole number, 0 or more"):
        embedded.build(
            read_corpus(demo_corpus()), tmp_path / "demo", embedded.Options(workers=workers)
        )
    assert not (tmp_path / "demo").exists()


def test_segments_and_ranges_stop_at_their_caps_whatever_the_budget(tmp_path, monkeypatch):
    """A generous budget does not make segments or ranges larger than the caps (their memory is
    the build's peak, and larger ones are no faster): the index is the one a single pass gives."""
    from searchain.tools.retrieval.embedded.postings import segments

    demo = list(read_corpus(demo_corpus()))
    passages = [replace(p, id=f"{p.id}/{copy}") for copy in range(6) for p in demo]
    assert len(passages) > 2 * workers.BATCH  # three batches: three segments at the cap
    whole = embedded.build(passages, tmp_path / "whole", embedded.Options(workers=0))
    monkeypatch.setattr(segments, "MAX_SEGMENT", 200)
    monkeypatch.setattr(segments, "MAX_RANGE", 100)
    stages: list[str] = []
    capped = embedded.build(
        passages,
        tmp_path / "capped",
        embedded.Options(memory=4 << 30, workers=0),
        stage=stages.append,
    )
    assert int(stages[0].split(", ")[1].split()[0]) >= 3, stages
    for name in [*POSTINGS, *FILES]:
        assert (capped.path / "bm25" / name).read_bytes() == (
            whole.path / "bm25" / name
        ).read_bytes(), name


def test_a_vocabulary_that_fails_beside_the_merge_fails_the_build(tmp_path, monkeypatch):
    """The vocabulary is written in a thread while the postings merge: what it raises (a full
    disk) stops the build, and nothing is published."""
    from searchain.tools.retrieval.embedded.postings import segments

    def full_disk(directory, terms):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(segments, "write_vocabulary", full_disk)
    with pytest.raises(OSError, match="No space left"):
        embedded.build(read_corpus(demo_corpus()), tmp_path / "index")
    assert not (tmp_path / "index").exists()
