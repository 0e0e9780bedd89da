"""A citation of a person's document names its file and page on every surface that shows it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from searchain.chat_markdown import answer_markdown, reasoning_markdown
from searchain.integrations import format_answer
from searchain.output import result_from_json, result_to_json
from searchain.page import render_page
from searchain.state import checkpoint_serializer
from searchain.types import Passage, Source
from tests.conftest import PASSAGES, ScriptedReplies, TableRetriever
from tests.unit.nodes.searchain.test_graph import (
    GOOD_CHAIN,
    Q1,
    Q2,
    Q3,
    TRACE,
    agreeing_reader,
    run,
)

SOURCES = {
    "p1": Source("albums/spirit if.pdf", page=2, start=10, end=60),
    "p2": Source("people.md", section="Musicians › Kevin Drew", anchor="kevin-drew", end=40),
    "p3": Source("travel.html", section="Buses", anchor="buses", start=5, end=70),
}


def documents_run() -> dict:
    """The three-hop question over passages cut from a person's files."""
    sourced = {key: replace(p, source=SOURCES[p.id]) for key, p in PASSAGES.items()}
    retriever = TableRetriever({Q1: sourced["spirit"], Q2: sourced["drew"], Q3: sourced["bus"]})
    out, _ = run(ScriptedReplies(replies=[GOOD_CHAIN, TRACE]), retriever, agreeing_reader())
    return out


def test_references_carry_their_source_to_every_surface():
    out = documents_run()
    assert [r.source for r in out["references"]] == list(SOURCES.values())
    cited = [
        "albums/spirit if.pdf, p. 2",
        "people.md § Musicians › Kevin Drew",
        "travel.html § Buses",
    ]
    text = format_answer(out)  # the LangChain tool's text, MCP's text
    chat = answer_markdown(out)  # the chat reply
    for n, where in enumerate(cited, 1):
        assert f"[{n}] " in text and f"({where}): " in text
        assert f"({where}): “" in chat
    as_json = result_to_json(out)
    assert as_json["references"][0]["source"] == {
        "path": "albums/spirit if.pdf", "page": 2, "section": "", "anchor": "", "start": 10,
        "end": 60, "sent": False,
    }  # fmt: skip
    assert as_json["nodes"][1]["passage"]["source"]["anchor"] == "kevin-drew"
    back = result_from_json(as_json)
    assert [r.source for r in back["references"]] == list(SOURCES.values())
    assert back["nodes"][0].passage.source == SOURCES["p1"]


def test_the_page_links_each_reference_to_its_file_at_its_page_or_heading(tmp_path):
    results = [result_to_json(documents_run())]
    linked = render_page(results, documents=tmp_path)
    pdf = (tmp_path / "albums" / "spirit if.pdf").as_uri()
    assert f'<a href="{pdf}#page=2">albums/spirit if.pdf, p. 2</a>' in linked
    assert f'<a href="{(tmp_path / "people.md").as_uri()}#kevin-drew">' in linked
    plain = render_page(results)  # no folder known (Elasticsearch, a server): named, not linked
    assert "albums/spirit if.pdf, p. 2" in plain and "spirit%20if" not in plain

    # A file sent in the chat is in no folder: named, never linked to the index's files.
    def sent(item: dict) -> dict:
        return {**item, "source": {**item["source"], "sent": True}}

    sent_files = results[0] | {
        "references": [sent(r) for r in results[0]["references"]],
        "nodes": [{**n, "passage": sent(n["passage"])} for n in results[0]["nodes"]],
    }
    page = render_page([sent_files], documents=tmp_path)
    assert "albums/spirit if.pdf, p. 2" in page and f'<a href="{pdf}#page=2">' not in page


def test_a_passage_with_a_source_survives_a_checkpoint():
    passage = Passage("a.pdf#1", "A", "text", 1.5, Source("a.pdf", page=4, start=1, end=5))
    serde = checkpoint_serializer()
    assert serde.loads_typed(serde.dumps_typed({"p": [passage]})) == {"p": [passage]}


def test_ircot_and_the_baselines_name_their_paragraphs_files():
    paragraphs = [replace(PASSAGES["drew"], source=SOURCES["p2"]), PASSAGES["bus"]]
    reply = reasoning_markdown({"answer": "Toronto", "paragraphs": paragraphs})
    assert "[1] *Kevin Drew* (people.md § Musicians › Kevin Drew): “" in reply
    assert "[2] *Toronto Coach Terminal*: “" in reply  # a corpus passage: no source to name


def test_the_mcp_answer_structures_the_source():
    from searchain.server.mcp import as_result

    structured = as_result(result_to_json(documents_run())).structured_content
    assert structured["references"][0]["source"]["page"] == 2
    assert structured["references"][1]["source"]["section"] == "Musicians › Kevin Drew"


def test_a_source_reads_back_from_what_another_release_stored():
    stored = {"path": "a.md", "section": "S", "anchor": "s", "start": 0, "end": 9, "lines": [1, 2]}
    assert Source.of(stored) == Source("a.md", None, "S", "s", 0, 9)
    assert Path(Source.of(stored).path).name == "a.md"


def test_anything_that_is_not_a_source_reads_as_none():
    """A foreign Elasticsearch index may have its own `source` field; a result file may be
    edited: neither stops a search or a page (the passage shows its id)."""
    for stored in [None, "a.pdf", {"name": "Reuters"}, {"path": 3}, {"path": "a.pdf", "page": "3"},
                   {"path": "a.pdf", "start": 1.5}, {"path": "a.pdf", "page": True},
                   {"path": "a.pdf", "section": ["A"]}, {"path": "a.pdf", "sent": 1}]:  # fmt: skip
        assert Source.of(stored) is None, stored
    assert Source.of({"path": "a.pdf", "page": None}) == Source("a.pdf")
    page = render_page([{"question": "Q", "answer": "A", "final_content": "A [1].",
                         "references": [{"n": 1, "node": 0, "id": "x#1", "title": "T", "text": "t",
                                         "support": "stated", "source": {"name": "Reuters"}}],
                         "nodes": []}], documents=Path("/docs"))  # fmt: skip
    assert "(x#1)" in page
