"""The pruned top-k kernel against a brute-force dense sum, on random BM25-like matrices."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.bm25 import BM25Index
from searchain.tools.retrieval.corpus import read_corpus
from searchain.tools.retrieval.topk import TopK


@st.composite
def matrices(draw):
    n_docs = draw(st.integers(1, 60))
    n_terms = draw(st.integers(1, 12))
    cells = draw(
        st.sets(st.tuples(st.integers(0, n_docs - 1), st.integers(0, n_terms - 1)), max_size=300)
    )
    # A few distinct values, so ties (broken by the lower document id) really happen.
    values = draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0]), min_size=len(cells),
                           max_size=len(cells)))  # fmt: skip
    rows = [d for d, _ in sorted(cells)]
    cols = [t for _, t in sorted(cells)]
    matrix = sp.csc_matrix(
        (np.asarray(values, np.float32), (rows, cols)), shape=(n_docs, n_terms), dtype=np.float32
    )
    matrix.sort_indices()
    return matrix


@settings(max_examples=300, deadline=None)
@given(matrix=matrices(), data=st.data())
def test_top_k_equals_the_brute_force_ranking(matrix, data):
    n_terms = matrix.shape[1]
    terms = data.draw(st.lists(st.integers(0, n_terms - 1), max_size=6))
    k = data.draw(st.integers(1, 8))
    top = TopK({"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr})
    docs, scores = top.search(terms, k)
    dense = np.asarray(matrix[:, sorted(set(terms))].sum(axis=1), dtype=np.float64).ravel()
    expected = [d for d in np.argsort(-dense, kind="stable") if dense[d] > 0][:k]
    np.testing.assert_allclose(scores, dense[expected], rtol=1e-5)
    # The same documents, except where float rounding reorders exact ties.
    for doc, want in zip(docs, expected, strict=True):
        assert doc == want or np.isclose(dense[doc], dense[want], rtol=1e-5)
    batch_docs, _ = top.search_batch([terms, terms[::-1], []], k)
    assert list(batch_docs[0][: len(docs)]) == list(docs)
    assert list(batch_docs[1][: len(docs)]) == list(docs)
    assert (batch_docs[2] == -1).all() and (batch_docs[0][len(docs) :] == -1).all()


def test_index_batch_search_equals_one_query_at_a_time(tmp_path):
    from searchain import demo_corpus

    index = BM25Index.build(read_corpus(demo_corpus()), tmp_path / "index")
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
