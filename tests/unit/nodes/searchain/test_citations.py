from __future__ import annotations

from searchain.nodes.searchain.citations import compose_content, resolve_citations
from searchain.state import TreeNode
from searchain.types import Passage


def path():
    return [
        TreeNode(
            0,
            0,
            None,
            "Who?",
            passage=Passage("a", "A", "text a"),
            answer="Ann",
            step=1,
            source="llm",
        ),
        TreeNode(1, 0, 0, "Where?", passage=None, answer="Oslo", step=2, source="completed"),
        TreeNode(
            2,
            0,
            1,
            "When?",
            passage=Passage("c", "C", "text c"),
            answer="1990",
            step=3,
            source="corrected",
        ),
    ]


def test_grouped_and_adjacent_markers_resolve():
    text, refs, unresolved = resolve_citations("Ann [1, 3] in 1990[3][1].", path())
    assert text == "Ann [1][3] in 1990 [3][1]."
    assert [(r.n, r.id, r.node) for r in refs] == [(1, "a", 0), (3, "c", 2)]
    assert unresolved == []


def test_markers_to_missing_steps_or_passages_are_removed_and_reported():
    text, refs, unresolved = resolve_citations("Oslo [2]. Ann [1]. Nothing [9] [9].", path())
    assert text == "Oslo. Ann [1]. Nothing."
    assert [r.n for r in refs] == [1]
    assert unresolved == [2, 9]


def test_compose_content_cites_steps_that_have_passages():
    text = compose_content(path(), "1990")
    assert text == "Who? Ann [1]. Where? Oslo. When? 1990 [3]. So the final answer is 1990."
