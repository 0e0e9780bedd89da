"""The NumPy scorer that answers while the kernel loads: the kernel's answers, float for float."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval import exhaustive
from searchain.tools.retrieval.topk import TopK

SCORES = st.one_of(
    st.sampled_from([0.5, 1.0, 1.5, 2.25]),  # ties between documents
    st.floats(
        2.0**-30, 40.0, width=32
    ),  # sums that float64 rounds: the order they are added in shows
)


@st.composite
def matrices(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], int]:
    """A score matrix in CSC form, as the build writes it, and its number of passages."""
    n_docs = draw(st.integers(1, 40))
    columns = [
        sorted(draw(st.sets(st.integers(0, n_docs - 1)))) for _ in range(draw(st.integers(1, 10)))
    ]
    indptr = np.zeros(len(columns) + 1, np.int64)
    np.cumsum([len(c) for c in columns], out=indptr[1:])
    indices = np.array([d for c in columns for d in c], np.int32)
    data = np.array([draw(SCORES) for _ in indices], np.float32)
    return {"data": data, "indices": indices, "indptr": indptr}, n_docs


@settings(max_examples=300, deadline=None)
@given(matrices(), st.data(), st.integers(1, 12), st.booleans())
def test_the_numpy_scorer_answers_as_the_kernel_does(matrix, data, k, dense):
    scores, n_docs = matrix
    n_terms = len(scores["indptr"]) - 1
    terms = sorted(data.draw(st.sets(st.integers(0, n_terms - 1), min_size=1)))
    kernel_docs, kernel_scores = TopK(scores).search(terms, k)
    docs, found = exhaustive.top_k(
        scores["data"], scores["indices"], scores["indptr"], terms, k, n_docs, dense=dense
    )
    assert docs.tolist() == kernel_docs.tolist()
    assert found.tobytes() == kernel_scores.tobytes()  # the same floats, bit for bit
    assert docs.dtype == kernel_docs.dtype and found.dtype == kernel_scores.dtype


def test_its_cost_is_the_postings_of_the_query_terms():
    indptr = np.array([0, 3, 3, 10])
    assert exhaustive.postings(indptr, [0, 2]) == 10
    assert exhaustive.postings(indptr, [1]) == 0


def test_sums_that_round_are_added_in_term_order_by_both():
    """Passage 1 holds 32 and two scores of 0.375 of 32's float64 step each: added in term order
    the steps round away (32, a tie that passage 0 wins), added smallest first they carry (passage
    1 ahead). Both scorers add in term order, whichever order the kernel walks the lists in."""
    tiny = np.float32(1.5 * 2.0**-49)
    scores = {
        "data": np.array([32.0, 32.0, tiny, tiny], np.float32),
        "indices": np.array([0, 1, 1, 1], np.int32),
        "indptr": np.array([0, 2, 3, 4], np.int64),
    }
    kernel_docs, _ = TopK(scores).search([0, 1, 2], 2)
    for dense in (True, False):
        docs, _ = exhaustive.top_k(*scores.values(), [0, 1, 2], 2, 2, dense=dense)
        assert docs.tolist() == kernel_docs.tolist() == [0, 1]
