"""Any LangChain retriever as the backend: real ids and titles, stable ids, the graph on it."""

from __future__ import annotations

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.tools.retrieval.resolve import resolve_retriever
from tests.conftest import ScriptedReplies, TableReader


class KeywordRetriever(BaseRetriever):
    """A real LangChain retriever: documents sharing a word with the query."""

    docs: list[Document]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        words = set(query.lower().split())
        return [d for d in self.docs if words & set(d.page_content.lower().split())]


def test_langchain_retrievers_plug_in_as_the_backend():
    docs = [
        Document("Kevin Drew was born in Toronto.", id="d1", metadata={"title": "Kevin Drew"}),
        Document("Spirit If... is an album.", metadata={"id": "d2", "score": 3.5}),
    ]
    retriever = resolve_retriever(KeywordRetriever(docs=docs))
    [hit] = retriever.search("where was drew born", k=1)
    assert (hit.id, hit.title, hit.text) == ("d1", "Kevin Drew", "Kevin Drew was born in Toronto.")
    [hit] = retriever.search("spirit", k=3)
    assert (hit.id, hit.score) == ("d2", 3.5)
    # And the whole graph runs on it.
    llm = ScriptedReplies(
        replies=[
            "[Query 1]: Where was Kevin Drew born?\n[Answer 1]: Toronto",
            "Toronto [1]. So the final answer is Toronto.",
        ]
    )
    out = build_graph().invoke(
        {"question": "Where was Kevin Drew born?"},
        context=Context(llm=llm, retriever=KeywordRetriever(docs=docs), reader=TableReader({})),
    )
    assert [r.id for r in out["references"]] == ["d1"]


def test_documents_without_ids_get_stable_content_ids_never_query_derived_ones():
    from searchain.tools.retrieval.langchain import LangChainRetriever

    docs = [
        Document("Kevin Drew was born in Toronto.", metadata={"headline": "Kevin Drew"}),
        Document("Toronto is in Ontario.", metadata={"meta": {"uid": 7}}),
    ]
    plain = LangChainRetriever(KeywordRetriever(docs=docs))
    first = plain.search("drew is", k=2)
    again = plain.search("born toronto", k=2)
    assert [p.id for p in first] == [p.id for p in again]  # the same passage, the same id
    assert len({p.id for p in first}) == 2 and all(p.id.startswith("sha256:") for p in first)
    assert not any("toronto" in p.id for p in first + again)
    configured = LangChainRetriever(
        KeywordRetriever(docs=docs), id_keys=("meta.uid",), title_keys=("headline",)
    )
    assert [(p.id, p.title) for p in configured.search("drew is", k=2)] == [
        (first[0].id, "Kevin Drew"),
        ("7", ""),
    ]


def test_unknown_retriever_specs_name_the_choices():
    with pytest.raises(ValueError, match="unknown retriever 'faiss': use bm25"):
        resolve_retriever("faiss")
