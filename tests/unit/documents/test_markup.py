"""HTML, Markdown and DOCX: a section a heading, its path and anchor; only visible text."""

from __future__ import annotations

import re

import pytest

from searchain.documents.extracted import Unreadable
from searchain.documents.formats import extract
from tests.documents import docx_bytes


def sections(document):
    return [(s.section, s.anchor, s.text) for s in document.sections]


def test_markdown_sections_follow_the_headings_with_githubs_anchors():
    text = (
        "Intro before any heading.\n\n# Guide\n\nRead **this** [link](http://x).\n\n"
        "## Setup: the server\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```sh\n# not a heading\nrun it\n```\n\n"
        "## Setup: the server\n\nAgain.\n\n# Other\n\n![a diagram](d.png)\n"
    )
    document = extract("markdown", text.encode(), "guide.md")
    assert document.title == "Guide"
    assert sections(document) == [
        ("", "", "Intro before any heading."),
        ("Guide", "guide", "Guide\nRead this link."),
        ("Guide › Setup: the server", "setup-the-server",
         "Setup: the server\na | b\n1 | 2\n# not a heading\nrun it"),
        ("Guide › Setup: the server", "setup-the-server-1", "Setup: the server\nAgain."),
        ("Other", "other", "Other\na diagram"),
    ]  # fmt: skip


def test_offsets_locate_each_section_in_the_extracted_text():
    document = extract("markdown", b"# A\n\none two\n\n## B\n\nthree\n", "a.md")
    whole = "\n\n".join(s.text for s in document.sections)
    for section in document.sections:
        assert whole[section.start : section.start + len(section.text)] == section.text


def test_html_reads_what_a_browser_shows_under_its_headings():
    page = (
        b"<html><head><title>Handbook</title><style>p {color: red}</style></head><body>"
        b"<nav>Menu</nav><p>Hello <b>there</b><!-- hidden --> again</p>"
        b"<script>var secret = 1;</script><noscript>enable js</noscript>"
        b"<section id='install'><h2>Install <small>it</small></h2><p>Run pip.</p></section>"
        b"<h3><a name='deep'></a>Deeper</h3><table><tr><td>a</td><td>b</td></tr></table>"
        b"<h2>No anchor</h2><ul><li>one</li><li>two</li></ul></body></html>"
    )
    document = extract("html", page, "h.html")
    assert document.title == "Handbook"
    assert sections(document) == [
        ("", "", "Menu\nHello there again"),
        ("Install it", "install", "Install it\nRun pip."),
        ("Install it › Deeper", "deep", "Deeper\na | b"),
        ("No anchor", "", "No anchor\none\ntwo"),
    ]


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("<p>café</p>".encode(), "café"),  # UTF-8, undeclared
        ("<p>café</p>".encode("cp1252"), "café"),  # not UTF-8, undeclared: as browsers do
        ('<meta charset="iso-8859-7"><p>\xe1</p>'.encode("latin-1"), "α"),  # declared
    ],
)
def test_html_is_decoded_as_a_browser_would(data, text):
    assert extract("html", data, "p.html").sections[0].text == text


def test_html_title_falls_back_to_the_first_heading_then_the_file_name():
    assert extract("html", b"<h1>First</h1><p>x</p>", "a.html").title == "First"
    assert extract("html", b"<p>x</p>", "my_page.htm").title == "my page"


def test_docx_headings_tables_and_title():
    data = docx_bytes(
        [("h1", "Meeting notes"), ("p", "Budget approved."), ("h2", "Actions"),
         ("table", "Alice | writes the report"), ("h1", "Next")],
        title="Board meeting",
    )  # fmt: skip
    document = extract("docx", data, "notes.docx")
    assert document.title == "Board meeting"
    assert sections(document) == [
        ("Meeting notes", "", "Meeting notes\nBudget approved."),
        ("Meeting notes › Actions", "", "Actions\nAlice | writes the report"),
        ("Next", "", "Next"),
    ]
    untitled = extract("docx", docx_bytes([("p", "Intro."), ("h1", "Heading")]), "n.docx")
    assert untitled.title == "Heading"


@pytest.mark.parametrize(
    ("fmt", "data", "reason"),
    [
        ("docx", b"PK\x03\x04 truncated zip", "not a readable DOCX"),
        ("docx", b"{\\rtf1 an RTF named .docx}", "not a DOCX (not a zip archive"),
        ("markdown", b"\x00\x01binary", "binary data, not text"),
        ("text", "café".encode("latin-1"), "not UTF-8 text at byte 4"),
        ("text", b"   \n\t", "no text"),
        ("html", b"<html><script>only()</script></html>", "no visible text"),
    ],
)
def test_a_file_that_is_not_what_its_name_says_is_named(fmt, data, reason):
    with pytest.raises(Unreadable, match="^" + re.escape(reason)):
        extract(fmt, data, "x")


def test_plain_text_is_one_section_titled_by_its_name():
    document = extract("text", "\ufeffLine one.\nLine two.\n".encode(), "meeting-notes.txt")
    assert document.title == "meeting notes"
    assert sections(document) == [("", "", "Line one.\nLine two.\n")]


def test_a_docx_that_unpacks_past_its_bound_is_refused_unread(monkeypatch):
    """A zip bomb named .docx (a file sent to the team server) is refused from the archive's
    directory, before any part is unpacked; a real DOCX at the bound is read."""
    import io
    import zipfile

    from searchain.documents import docx

    data = docx_bytes([("h1", "Giotto"), ("p", "A painter.")])
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        size = sum(part.file_size for part in archive.infolist())
    monkeypatch.setattr(docx, "UNPACKED_BYTES", size)
    assert extract("docx", data, "a.docx").sections
    monkeypatch.setattr(docx, "UNPACKED_BYTES", size - 1)
    refused = r"^unpacks to \d+ MiB, over the \d+ MiB a DOCX may hold \(a zip bomb\?\)$"
    with pytest.raises(Unreadable, match=refused):
        extract("docx", data, "a.docx")
