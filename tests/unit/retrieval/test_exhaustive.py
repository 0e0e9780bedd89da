"""The NumPy scorers, the one a fresh process searches with (pruned) and the exhaustive sum:
the kernel's answers, float for float.

Random corpora with ties are in ``test_topk.py``; here, a real index's queries.
"""

from __future__ import annotations

from searchain import demo_corpus
from searchain.eval.datasets import musique_hops
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.search import exhaustive
from searchain.tools.retrieval.embedded.search import first as first_search
from searchain.tools.retrieval.embedded.search.topk import TopK


def test_the_numpy_scorer_answers_the_demo_questions_as_the_kernel_does(tmp_path, shared_data):
    index = embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    kernel = TopK(index.postings)
    questions = [h.question for h in musique_hops(shared_data, "tune")][:200]
    assert len(questions) == 200
    for question in questions:
        terms = sorted(set(index.terms(question)))
        docs, scores = kernel.search(terms, 10)
        for dense in (True, False):
            np_docs, np_scores = exhaustive.top_k(index.postings, terms, 10, dense=dense)
            assert np_docs.tolist() == docs.tolist()
            assert np_scores.tobytes() == scores.tobytes()  # the same floats, bit for bit
        pruned_docs, pruned_scores = first_search.top_k(index.postings, terms, 10)
        assert pruned_docs.tolist() == docs.tolist()
        assert pruned_scores.tobytes() == scores.tobytes()


def test_its_cost_is_the_postings_of_the_query_terms(tmp_path):
    index = embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    painter, florence = index.terms("painter Florence")
    indptr = index.postings.indptr
    counts = [int(indptr[t + 1] - indptr[t]) for t in (painter, florence)]
    assert min(counts) > 1
    assert index.postings.postings([painter, florence]) == sum(counts)
    assert index.postings.postings([]) == 0
