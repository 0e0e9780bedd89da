"""A thread's own files as a retriever: BM25 in memory, alone or fused with the index."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchain.context import Context
from searchain.documents.uploads import SentFile, UploadBounds, read_uploads
from searchain.searched import thread_retriever
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.uploaded import PassagesBM25, Together, files_retriever
from searchain.types import Passage
from tests.conftest import PASSAGES, TableRetriever

WORDS = ["giotto", "painter", "chapel", "padua", "fresco", "siena", "florence", "gothic", "the"]


def passage(i: int, text: str) -> Passage:
    return Passage(f"f{i}", f"title {i % 3}", text)


texts = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join), min_size=1, max_size=12
)


@settings(
    deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts, st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join))
def test_scores_are_the_embedded_index_s_for_the_same_passages(tmp_path_factory, corpus, query):
    passages = [passage(i, text) for i, text in enumerate(corpus)]
    index = embedded.build(
        passages, tmp_path_factory.mktemp("index") / "i", embedded.Options(workers=0)
    )
    memory = PassagesBM25(passages)
    expected = [(p.id, p.score) for p in index.search(query, k=20)]
    got = [(p.id, p.score) for p in memory.search(query, k=20)]
    assert [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-5)


def test_only_passages_that_share_a_term_are_returned():
    memory = PassagesBM25([passage(0, "giotto painter"), passage(1, "siena florence")])
    assert [p.id for p in memory.search("giotto", k=5)] == ["f0"]
    assert memory.search("the", k=5) == [] and memory.search("unknown words", k=5) == []
    assert PassagesBM25([]).search("giotto") == []


class Fixed:
    def __init__(self, ids: list[str]) -> None:
        self.ids = ids

    def search(self, query: str, k: int = 5) -> list[Passage]:
        return [Passage(i, "", i) for i in self.ids[:k]]


@given(
    st.lists(st.text("ab", min_size=1), max_size=6),
    st.lists(st.text("cd", min_size=1), max_size=6),
    st.integers(1, 10),
)
def test_together_interleaves_rank_by_rank_the_files_first(files, index, k):
    together = Together(Fixed(files), Fixed(index))
    fused = [p.id for p in together.search("q", k=k)]
    assert [[p.id for p in found] for found in together.search_batch(["q", "q"], k=k)] == [
        fused
    ] * 2
    files, index = files[:k], index[:k]
    expected = []
    for rank in range(k):
        expected += files[rank : rank + 1] + index[rank : rank + 1]
    assert fused == expected[:k]


def uploads():
    sent = SentFile("notes.md", "markdown", b"# Giotto\n\nGiotto painted the Arena Chapel.")
    return read_uploads([sent], [], UploadBounds(1 << 20, 10, 5))


def test_a_thread_searches_its_files_with_the_index_or_alone():
    index = TableRetriever({"Who painted the Arena Chapel?": PASSAGES["spirit"]})
    query = "Who painted the Arena Chapel?"
    together = thread_retriever(Context(retriever=index), uploads())
    assert [p.id for p in together.search(query, k=2)] == ["notes.md#1", "p1"]
    alone = thread_retriever(Context(retriever=index, uploads_searched="alone"), uploads())
    assert [p.id for p in alone.search(query, k=2)] == ["notes.md#1"]
    assert thread_retriever(Context(retriever=index), []) is index
    with pytest.raises(
        ValueError, match="uploads_searched is alone, but this thread holds no file"
    ):
        thread_retriever(Context(retriever=index, uploads_searched="alone"), [])


def test_the_files_index_is_built_once_per_thread_and_set_of_files():
    first, again = files_retriever(uploads(), "thread a"), files_retriever(uploads(), "thread a")
    assert first is again
    renamed = [type(u)("other.md", u.sha256, u.size, u.pages, u.passages) for u in uploads()]
    assert files_retriever(renamed, "thread a") is not first
    # Issue 67: keyed by the files alone, another user's thread that sent the same file was
    # served this one's (and how fast it answered said someone had sent it).
    assert files_retriever(uploads(), "thread b") is not first
    assert files_retriever(uploads(), None) is not files_retriever(uploads(), None)


def test_a_run_is_keyed_by_its_thread_and_one_of_no_thread_is_cached_nowhere():
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from searchain.searched import run_owner

    class State(TypedDict, total=False):
        owner: str

    graph = StateGraph(State)
    graph.add_node("ask", lambda state: {"owner": run_owner() or ""})
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    compiled = graph.compile()
    threaded = compiled.invoke({}, {"configurable": {"thread_id": "t-1"}})
    assert threaded["owner"] == "thread t-1"
    assert compiled.invoke({})["owner"] == ""
    assert run_owner() is None  # outside any run
