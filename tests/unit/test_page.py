"""The page renderer: escaping, every node's reason, one file written whole."""

from __future__ import annotations

import pytest

from searchain.page import render_page, why, write_page

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def result(**overrides):
    node = {
        "id": 0,
        "step": 1,
        "query": f"Who? {HOSTILE}",
        "llm_answer": "Giotto",
        "answer": "Giotto",
        "source": "llm",
        "reader_answer": "Giotto",
        "confidence": 0.9,
        "calibrated": True,
        "passage_id": "p1",
        "passage": {"id": "p1", "title": f"T {HOSTILE}", "text": f"Giotto {HOSTILE}", "score": 1},
        "theta": 0.5,
        "unsolved": False,
        "reused": False,
        "rejected": "",
        "support": "stated",
        "parent": None,
        "branch": 0,
    }
    base = {
        "question": f"Q {HOSTILE}",
        "answer": f"A {HOSTILE}",
        "final_content": f"Giotto [1] {HOSTILE}",
        "references": [
            {"n": 1, "node": 0, "id": "p1", "title": "T", "text": "Giotto", "support": "stated"}
        ],
        "nodes": [node],
        "rounds": 1,
        "stop_reason": "chain_passed",
        "format_failures": [],
    }
    return base | overrides


def test_model_and_corpus_text_is_escaped_everywhere():
    page = render_page([result()])
    assert page.count("<script>") == 1  # the page's own, nothing injected
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert '<a class="cite" href="#q1-ref-1" aria-label="citation 1">[1]</a>' in page


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"source": None}, "Not reached"),
        ({"reused": True}, "Reused from an earlier question"),
        ({"source": "corrected"}, "Corrected by IR"),
        ({"source": "completed"}, "Completed by IR"),
        ({"rejected": "Cimabue"}, "a person rejected the reader's 'Cimabue'"),
        ({"passage_id": None}, "retrieval found no passage"),
        ({"confidence": 0.2}, "not confident enough"),
        ({}, "the reader agreed, or had no evidence against it"),
    ],
)
def test_every_node_says_why_it_is_where_it_is(fields, reason):
    node = result()["nodes"][0] | fields
    assert reason in why(node)


def test_the_page_is_written_whole_and_an_empty_thread_is_refused(tmp_path):
    path = write_page(tmp_path / "deep" / "tree.html", [result(), result()])
    assert path.read_text(encoding="utf-8").count("<article") == 2
    assert sorted(p.name for p in path.parent.iterdir()) == ["tree.html"]  # no temporary left
    with pytest.raises(ValueError, match="at least one answered question"):
        write_page(tmp_path / "none.html", [])
    assert not (tmp_path / "none.html").exists()


def test_what_searchain_wrote_says_so_and_an_unverifiable_citation_is_named():
    composed = result(
        content_source="composed",
        model_content=f"Sorry {HOSTILE}",
        answer_source="path",
        references=[
            {"n": 1, "node": 0, "id": "p1", "title": "T", "text": "G", "support": "unverifiable"}
        ],
    )
    page = render_page([composed])
    assert "Composed by searchain from the reasoning steps" in page
    assert "the model wrote: &#x27;Sorry &lt;script&gt;" in page  # its words, escaped
    assert (
        "The model&#x27;s reply had no final-answer line: the answer shown is the last step&#x27;s."
        in page
    )
    assert '<span class="badge unverifiable">the lexical rule cannot check it</span>' in page
    assert "Composed by searchain" not in render_page([result()])


def test_the_page_names_its_thread_in_every_edit_line_and_none_without_one():
    """It printed a literal `searchain edit THREAD 0`."""
    page = render_page([result()], thread="t42")
    assert "searchain edit t42 0 --answer TEXT" in page and "edit THREAD" not in page
    assert "Thread t42: searchain show t42 prints it again" in page
    assert "searchain edit" not in render_page([result()])  # an evaluation's page has no thread


def test_a_round_that_asked_no_new_query_is_shown_all_the_same():
    """The tree said "2 rounds" and showed one: the second chain re-asked node 0 only."""
    tree = [
        {"id": 0, "root": None, "nodes": [0], "final_content": None},
        {"id": 1, "root": 0, "nodes": [0], "final_content": "Giotto [1]"},
    ]
    page = render_page([result(rounds=2, tree=tree)])
    assert "Round 2 re-planned with no new sub-question (its chain: node 0)" in page
    assert "re-planned with no new" not in render_page([result(tree=tree[:1])])
