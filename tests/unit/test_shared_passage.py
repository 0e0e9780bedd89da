"""Two steps that found one passage: each keeps its number and verdict, the passage is listed once.

Issue 66: the references listed the same passage twice, word for word, as [1] and [2].
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from searchain.chat_markdown import answer_markdown
from searchain.cli.common import out as console
from searchain.cli.render import show_result
from searchain.integrations import format_answer
from searchain.nodes.searchain.citations import resolve_citations
from searchain.output import result_from_json, result_to_json
from searchain.page import render_page
from searchain.state import TreeNode
from searchain.types import Passage
from tests.conftest import PASSAGES, ScriptedReplies, TableReader, TableRetriever
from tests.unit.nodes.searchain.test_graph import GOOD_CHAIN, Q1, Q2, Q3, TRACE, run

BOTH = Passage("p1", "Kevin Drew", "Kevin Drew, born in Toronto, made the album Spirit If....")


def shared_run() -> dict:
    """Steps 1 and 2 both find BOTH; step 3 its own passage. The reader is never confident."""
    retriever = TableRetriever({Q1: BOTH, Q2: BOTH, Q3: PASSAGES["bus"]})
    reader = TableReader({"p1": ("Kevin Drew", 0.01), "p3": ("Toronto Coach Terminal", 0.01)})
    out, _ = run(ScriptedReplies(replies=[GOOD_CHAIN, TRACE]), retriever, reader)
    return out


def test_the_second_reference_to_a_passage_points_at_the_first():
    refs = shared_run()["references"]
    listed = [(r.n, r.id, r.same_as) for r in refs]
    assert listed == [(1, "p1", None), (2, "p1", 1), (3, "p3", None)]
    assert [r.support for r in refs] == ["stated", "stated", "stated"]


def test_every_surface_quotes_the_shared_passage_once():
    out = shared_run()
    text = format_answer(out)  # the LangChain tool's and MCP's text
    chat = answer_markdown(out)
    with console.capture() as captured:
        show_result(out)
    terminal = captured.get()
    page = render_page([result_to_json(out)])
    page = page.split('<ol class="refs">')[1].split("</ol>")[0]  # the tree quotes each step's
    for shown in (text, chat, terminal, page):
        assert shown.count(BOTH.text) == 1, shown
        assert shown.count(PASSAGES["bus"].text) == 1
        assert "the passage of " in shown
    assert "[2] the passage of [1]" in text and "[2] the passage of [1] —" in chat
    assert "[2] the passage of [1] · states its step" in terminal
    assert 'the passage of <a href="#q1-ref-1">[1]</a>' in page


def test_the_mark_survives_json_and_a_checkpoint():
    back = result_from_json(result_to_json(shared_run()))
    assert [r.same_as for r in back["references"]] == [None, 1, None]


def node(step: int, passage: str) -> TreeNode:
    return TreeNode(
        step, 0, None, f"q{step}?", passage=Passage(passage, passage.upper(), f"text {passage}"),
        answer=f"a{step}", step=step, source="llm",
    )  # fmt: skip


@given(st.lists(st.sampled_from("abc"), min_size=1, max_size=8))
def test_each_passage_is_quoted_by_its_first_reference_only(passages):
    path = [node(step, passage) for step, passage in enumerate(passages, 1)]
    content = " ".join(f"S{n} [{n}]." for n in range(1, len(path) + 1))
    _, refs, _ = resolve_citations(content, path)
    assert [r.n for r in refs] == list(range(1, len(path) + 1))  # every step keeps its number
    first = {}
    for ref in refs:
        assert ref.same_as == first.get(ref.id)
        first.setdefault(ref.id, ref.n)
    assert sum(ref.same_as is None for ref in refs) == len(set(passages))
