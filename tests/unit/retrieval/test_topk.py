"""Block-max MaxScore against exhaustive BM25, on random corpora with ties and many blocks."""

from __future__ import annotations

import math
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.postings import compact
from searchain.tools.retrieval.embedded.postings.compact import BLOCK, CompactPostings
from searchain.tools.retrieval.embedded.postings.segments import MIN_MEMORY, PostingsBuilder
from searchain.tools.retrieval.embedded.search import exhaustive
from searchain.tools.retrieval.embedded.search import first as first_search
from searchain.tools.retrieval.embedded.search.maxscore import WINDOW
from searchain.tools.retrieval.embedded.search.topk import TopK

K1, B = 1.2, 0.75


@st.composite
def corpora(draw: st.DrawFn) -> list[list[int]]:
    """Passages as term ids: a few templates repeated (equal passages tie), and random ones;
    up to 700 passages over 10 terms, so common terms span several blocks."""
    templates = draw(
        st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=12), min_size=1, max_size=4)
    )
    n_docs = draw(st.sampled_from([1, 5, 40, BLOCK + 1, 700]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_docs):
        if rng.random() < 0.3:
            docs.append(templates[rng.integers(len(templates))])
        else:
            docs.append(rng.integers(0, 10, rng.integers(1, 15)).tolist())
    return docs


@st.composite
def zipf_corpora(draw: st.DrawFn) -> list[list[int]]:
    """Passages of Zipf-distributed term ids (0 commonest), some short, some long: lists from
    a few postings to many blocks, whose blocks' peaks differ."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_docs = draw(st.sampled_from([3, BLOCK, 5 * BLOCK + 7]))
    rng = np.random.default_rng(seed)
    return [np.minimum(rng.zipf(1.5, rng.integers(1, 40)) - 1, 9).tolist() for _ in range(n_docs)]


def build(directory: Path, docs: list[list[int]]) -> CompactPostings:
    builder = PostingsBuilder(directory / "segments", MIN_MEMORY)
    builder.vocab.add([f"t{i}" for i in range(10)])
    builder._tokens_per_segment = 500  # several segments
    for doc in docs:
        builder.add(np.asarray(doc, np.int32), np.asarray([len(doc)], np.int32))
    builder.write(directory / "bm25", K1, B)
    return CompactPostings.load(directory / "bm25")


def brute_force(docs: list[list[int]], terms: set[int]) -> np.ndarray:
    """Every passage's BM25 for ``terms``, from the formula in float64."""
    counts = [Counter(d) for d in docs]
    avgdl = sum(map(len, docs)) / len(docs)
    scores = np.zeros(len(docs))
    for t in terms:
        df = sum(t in c for c in counts)
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        for i, c in enumerate(counts):
            if c[t]:
                norm = K1 * (1 - B + B * len(docs[i]) / avgdl)
                scores[i] += idf * c[t] / (norm + c[t])
    return scores


@settings(max_examples=150, deadline=None)
@given(corpora(), st.data())
def test_top_k_equals_exhaustive_bm25(docs, data):
    terms = data.draw(st.lists(st.integers(0, 11), max_size=6))  # 10 and 11: not indexed
    k = data.draw(st.sampled_from([1, 3, 10]))
    # Windows of the walk: one passage, a bitmap word, not a multiple of one, all the corpus.
    window = data.draw(st.sampled_from([1, 64, 100, WINDOW]))
    threads = data.draw(st.sampled_from([1, 2, 3, 8]))  # one query split into ranges
    with tempfile.TemporaryDirectory() as tmp:
        postings = build(Path(tmp), docs)
        held = sorted({t for t in terms if t < 10})
        found, scores = TopK(postings, window, threads, split=0).search(held, k)
        # The NumPy scorer, bit for bit, in both of its ways.
        for dense in (True, False):
            np_docs, np_scores = exhaustive.top_k(postings, held, k, dense=dense)
            assert np_docs.tolist() == found.tolist()
            assert np_scores.tobytes() == scores.tobytes()
        pruned_docs, pruned_scores = first_search.top_k(postings, held, k)  # and pruned
        assert pruned_docs.tolist() == found.tolist()
        assert pruned_scores.tobytes() == scores.tobytes()
        # BM25 from its formula: the same scores, and the same passages up to exact ties.
        reference = brute_force(docs, set(held))
        expected = [d for d in np.argsort(-reference, kind="stable") if reference[d] > 0][:k]
        assert len(found) == len(expected)
        np.testing.assert_allclose(scores, reference[expected], rtol=1e-5)
        for doc, want in zip(found, expected, strict=True):
            assert doc == want or np.isclose(reference[doc], reference[want], rtol=1e-6)
        if len(found):  # a tie goes to the lower passage
            assert found[0] == min(np.flatnonzero(reference == reference[found[0]]))
        batch, _ = TopK(postings, window).search_batch([held, held[::-1], []], k)
        assert list(batch[0][: len(found)]) == list(found) == list(batch[1][: len(found)])
        assert (batch[2] == -1).all() and (batch[0][len(found) :] == -1).all()


@settings(max_examples=80, deadline=None)
@given(zipf_corpora(), st.data())
def test_top_k_equals_exhaustive_bm25_on_skewed_lists(docs, data):
    """Common and rare terms, blocks whose peaks differ (what the probes pass blocks over by),
    lists turning from walked to probed mid-window: the answer stays exhaustive BM25's."""
    terms = sorted(set(data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=8))))
    k = data.draw(st.sampled_from([1, 3, 10]))
    window = data.draw(st.sampled_from([1, 64, 100, WINDOW]))
    threads = data.draw(st.sampled_from([1, 2, 3, 8]))
    # The NumPy decoder's chunks of blocks: one a block, a few, and the default (one chunk).
    chunk = data.draw(st.sampled_from([1, 2, 3, compact.CHUNK]))
    with tempfile.TemporaryDirectory() as tmp:
        postings = build(Path(tmp), docs)
        found, scores = TopK(postings, window, threads, split=0).search(terms, k)
        with mock.patch.object(compact, "CHUNK", chunk):
            np_docs, np_scores = exhaustive.top_k(postings, terms, k)
            pruned_docs, pruned_scores = first_search.top_k(postings, terms, k)
        assert np_docs.tolist() == found.tolist() == pruned_docs.tolist()
        assert np_scores.tobytes() == scores.tobytes() == pruned_scores.tobytes()


@settings(max_examples=40, deadline=None)
@given(zipf_corpora(), st.data())
def test_a_batch_in_threads_answers_each_query_as_alone(docs, data):
    """Threads taking a batch's queries a few at a time (more queries than threads, chunks and
    threads of every ratio): each row is the query's own answer, in the query's own row."""
    from searchain.tools.retrieval.embedded.search import topk

    queries = data.draw(st.lists(st.lists(st.integers(0, 9), max_size=6), min_size=0, max_size=40))
    k = data.draw(st.sampled_from([1, 3, 10]))
    threads = data.draw(st.sampled_from([1, 2, 3, 8]))
    chunk = data.draw(st.sampled_from([1, 2, 5, topk.BATCH_CHUNK]))
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(topk, "BATCH_CHUNK", chunk):
        kernel = TopK(build(Path(tmp), docs), threads=threads)
        batch_docs, batch_scores = kernel.search_batch(queries, k)
        assert batch_docs.shape == batch_scores.shape == (len(queries), k)
        for row, terms in enumerate(queries):
            found, scores = kernel.search(terms, k)
            assert batch_docs[row].tolist() == found.tolist() + [-1] * (k - len(found))
            assert batch_scores[row][: len(found)].tobytes() == scores.tobytes()


def test_a_small_batch_is_shared_out_between_the_threads(tmp_path, monkeypatch):
    """Fewer queries than a chunk for each thread: each thread gets an even share (a batch of
    four on two threads runs on both), and a large batch is cut into chunks, no thread more
    than the threads asked for."""
    import threading as threads_module

    from searchain.tools.retrieval.embedded.search import maxscore

    kernel = TopK(build(tmp_path, [[0, 1], [1, 2], [2]]), threads=2)
    taken: list[tuple[int, int]] = []
    runners: set[int] = set()
    real = maxscore.top_k_each

    def recording(arrays, flat, offsets, first, last, *rest):
        taken.append((first, last))
        runners.add(threads_module.get_ident())
        real(arrays, flat, offsets, first, last, *rest)

    monkeypatch.setattr(maxscore, "top_k_each", recording)
    kernel.search_batch([[0], [1], [2], [0, 2]], 1)
    assert sorted(taken) == [(0, 2), (2, 4)]
    taken.clear()
    runners.clear()
    kernel.search_batch([[0]] * 41, 1)
    assert sorted(taken) == [(a, min(a + 8, 41)) for a in range(0, 41, 8)]
    assert len(runners) <= 2
    taken.clear()
    kernel.search_batch([[0]], 1)
    assert taken == [(0, 1)]


def test_a_batch_thread_that_fails_fails_the_batch(tmp_path, monkeypatch):
    """What a batch's thread raises is raised in the caller, after every thread has ended."""
    from searchain.tools.retrieval.embedded.search import maxscore, topk

    kernel = TopK(build(tmp_path, [[0, 1], [1, 2], [2]]), threads=3)
    calls: list[int] = []
    real = maxscore.top_k_each

    def failing(arrays, flat, offsets, first, *rest):
        calls.append(first)
        if first == 2:
            raise MemoryError("the third chunk")
        real(arrays, flat, offsets, first, *rest)

    monkeypatch.setattr(topk, "BATCH_CHUNK", 1)
    monkeypatch.setattr(maxscore, "top_k_each", failing)
    with pytest.raises(MemoryError, match="the third chunk"):
        kernel.search_batch([[0], [1], [2], [0, 2], [1, 2], [0]], 1)
    assert 2 in calls and len(calls) == len(set(calls))  # each chunk taken once


@pytest.mark.parametrize("window", [0, -1, 2.5, 64.0, True, "64", None])
def test_a_window_that_is_no_whole_number_of_passages_is_refused(tmp_path, window):
    postings = build(tmp_path, [[0, 1], [1]])
    with pytest.raises(ValueError, match="window must be a whole number of passages, at least 1"):
        TopK(postings, window)
    assert TopK(postings, 1).search([0, 1], 1)[0].tolist() == [0]


def test_index_batch_search_equals_one_query_at_a_time(tmp_path):
    from searchain import demo_corpus

    index = embedded.build(read_corpus(demo_corpus()), tmp_path / "index")
    queries = [
        "Lorenzo Monaco",
        "Italian painter and architect",
        "qqqqxyz",
        "the",
        "Who influenced Lorenzo Monaco?",
    ]
    for k in (1, 3):
        batch = index.search_batch(queries, k=k)
        assert batch == [index.search(q, k=k) for q in queries]
    assert batch[2] == [] and batch[0][0].title.startswith("Lorenzo Monaco")


def test_tables_too_large_for_uint32_are_read_the_same(tmp_path):
    """An index past 4 billion postings keeps its offset tables in int64: the kernel and the
    NumPy scorer read those as they read uint32 ones."""
    from dataclasses import replace

    rng = np.random.default_rng(5)
    docs = [rng.integers(0, 10, rng.integers(1, 15)).tolist() for _ in range(700)]
    narrow = build(tmp_path, docs)
    assert narrow.indptr.dtype == narrow.blocks.dtype == narrow.block_starts.dtype == np.uint32
    wide = replace(
        narrow,
        indptr=narrow.indptr.astype(np.int64),
        blocks=narrow.blocks.astype(np.int64),
        block_starts=narrow.block_starts.astype(np.int64),
    )
    for terms in ([0], [1, 4], [0, 2, 3, 5, 9]):
        found, scores = TopK(narrow).search(terms, 10)
        assert len(found) == 10
        other, other_scores = TopK(wide).search(terms, 10)
        assert other.tolist() == found.tolist()
        assert other_scores.tobytes() == scores.tobytes()
        assert exhaustive.top_k(wide, terms, 10)[0].tolist() == found.tolist()


@pytest.mark.parametrize("threads", [0, -1, 2.5, 2.0, True, "2"])
def test_threads_that_are_no_whole_number_of_at_least_one_are_refused(tmp_path, threads):
    postings = build(tmp_path, [[0, 1], [1]])
    with pytest.raises(ValueError, match="threads must be a whole number, at least 1"):
        TopK(postings, threads=threads)


@pytest.mark.parametrize("split", [-1, 2.5, 2.0, True, "2", None])
def test_a_split_that_is_no_whole_number_of_postings_is_refused(tmp_path, split):
    postings = build(tmp_path, [[0, 1], [1]])
    with pytest.raises(ValueError, match="split must be a whole number of postings, 0 or more"):
        TopK(postings, split=split)


def test_a_query_gets_a_thread_for_each_split_postings_up_to_its_threads(tmp_path, monkeypatch):
    from searchain.tools.retrieval.embedded.search import maxscore

    postings = build(tmp_path, [[0, 1], [1], [1, 1], [0], [1]])  # term 1: 4 postings
    ranges: list[tuple[int, int]] = []
    search_range = maxscore.search_range

    def recorded(p, terms, weight, rank, ub, k, window, lo, hi, shared, me):
        ranges.append((lo, hi))
        return search_range(p, terms, weight, rank, ub, k, window, lo, hi, shared, me)

    monkeypatch.setattr(maxscore, "search_range", recorded)
    for threads, split, expected in [
        (8, 2, [(0, 2), (2, 5)]),  # 4 postings, 2 a thread: 2 threads of the 8
        (8, 1, [(0, 1), (1, 2), (2, 3), (3, 5)]),
        (3, 1, [(0, 1), (1, 3), (3, 5)]),  # no more than its threads
        (8, 0, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),  # 0: every thread, a passage each
        (8, 3, []),  # one thread: the whole-index kernel, no ranges
        (1, 1, []),
    ]:
        ranges.clear()
        found, _ = TopK(postings, threads=threads, split=split).search([1], 10)
        assert sorted(ranges) == expected and found.tolist() == [2, 1, 4, 0]  # a tie: 1 first


def test_more_threads_than_passages_search_each_passage_once(tmp_path):
    postings = build(tmp_path, [[0, 1], [1], [1, 1]])
    for threads in (1, 2, 3, 8):
        found, _ = TopK(postings, threads=threads, split=0).search([1], 10)
        assert found.tolist() == [2, 1, 0]
    assert TopK(postings).threads >= 1  # the cores this process may run on


def test_a_range_that_fails_in_a_helper_thread_fails_the_search(tmp_path, monkeypatch):
    """A split query's ranges run in threads: an error in one is raised to the caller, not lost
    with its range's passages."""
    from searchain.tools.retrieval.embedded.search import maxscore

    postings = build(tmp_path, [[0, 1], [1], [1, 1], [0]])
    search_range = maxscore.search_range

    def failing(p, terms, weight, rank, ub, k, window, lo, hi, shared, me):
        if me == 1:
            raise MemoryError("range 1")
        return search_range(p, terms, weight, rank, ub, k, window, lo, hi, shared, me)

    monkeypatch.setattr(maxscore, "search_range", failing)
    with pytest.raises(MemoryError, match="range 1"):
        TopK(postings, threads=2, split=0).search([0, 1], 3)
    assert TopK(postings, threads=2, split=2).search([0], 3)[0].tolist() == [3, 0]  # not split
