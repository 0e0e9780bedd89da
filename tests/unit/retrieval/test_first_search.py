"""The pruned NumPy scorer a fresh process searches with: exhaustive BM25's answers, float for
float, reading stop words only in the blocks that hold a candidate."""

from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.embedded.postings.compact import BLOCK, CompactPostings
from searchain.tools.retrieval.embedded.search import exhaustive
from searchain.tools.retrieval.embedded.search import first as first_search
from tests.unit.retrieval.test_topk import build


@st.composite
def stop_word_corpora(draw: st.DrawFn) -> list[list[int]]:
    """Passages where terms 0 and 1 are stop words (in most passages, many blocks) and 2-9 are
    rare, each in a few passages, some repeated within one: the shape MaxScore skips most of."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_docs = draw(st.sampled_from([BLOCK - 1, 6 * BLOCK + 5, 20 * BLOCK]))
    rare = draw(st.sampled_from([0.002, 0.01, 0.05]))
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_docs):
        doc = [0] * int(rng.integers(0, 4)) + [1] * int(rng.random() < 0.6)
        doc += [t for t in range(2, 10) if rng.random() < rare] * int(rng.integers(1, 3))
        docs.append(doc or [0])
    return docs


@settings(max_examples=80, deadline=None)
@given(stop_word_corpora(), st.data())
def test_the_pruned_scorer_equals_the_exhaustive_sum(docs, data):
    terms = sorted(set(data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=6))))
    k = data.draw(st.sampled_from([1, 3, 10, 50]))
    with tempfile.TemporaryDirectory() as tmp:
        postings = build(Path(tmp), docs)
        want_docs, want_scores = exhaustive.top_k(postings, terms, k)
        got_docs, got_scores = first_search.top_k(postings, terms, k)
        assert got_docs.tolist() == want_docs.tolist()
        assert got_scores.tobytes() == want_scores.tobytes()


def the_and_a_rare_word(directory: Path) -> CompactPostings:
    """Term 0 ('the') in every passage, 40 blocks; term 2, twice, in passages 5, 700 and 4000."""
    docs = [[0] for _ in range(40 * BLOCK)]
    for at in (5, 700, 4000):
        docs[at] = [0, 2, 2]
    return build(directory, docs)


def test_a_stop_word_is_read_only_in_the_blocks_of_the_rare_words_passages(tmp_path):
    """The top 2 read the rare list whole, then at most the three blocks of 'the' that may hold
    its passages."""
    postings = the_and_a_rare_word(tmp_path)
    read: list[tuple[int, int]] = []
    scores = CompactPostings.scores

    def counted(self, t, chosen=None):
        found = scores(self, t, chosen)
        read.append((t, len(found[0])))
        return found

    with mock.patch.object(CompactPostings, "scores", counted):
        found, _ = first_search.top_k(postings, [0, 2], 2)
    assert found.tolist() == exhaustive.top_k(postings, [0, 2], 2)[0].tolist() == [5, 700]
    assert read[0] == (2, 3)  # the rare word, whole
    assert read[1][0] == 0 and 0 < read[1][1] <= 3 * BLOCK  # 'the': a few of its 5,120


def test_a_query_that_would_read_more_than_its_budget_is_left_to_the_kernel(tmp_path):
    postings = the_and_a_rare_word(tmp_path)
    want = exhaustive.top_k(postings, [0, 2], 2)[0].tolist()
    # It reads the rare word's 3 postings, then 3 blocks of 'the': 3 + 3 * BLOCK in all.
    assert first_search.top_k(postings, [0, 2], 2, budget=2) is None
    assert first_search.top_k(postings, [0, 2], 2, budget=3 + 3 * BLOCK - 1) is None
    found = first_search.top_k(postings, [0, 2], 2, budget=3 + 3 * BLOCK)
    assert found is not None and found[0].tolist() == want
