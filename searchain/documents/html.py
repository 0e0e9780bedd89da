"""HTML: one section a heading (``h1``-``h6``), parsed by lxml (BSD; libxml2's HTML parser).

Only what a browser shows is read: ``script``, ``style``, ``template``, ``noscript``, ``head`` and
comments are not. Block elements (paragraphs, list items, table rows...) end a line. A heading's
anchor is its ``id`` (or that of an ``<a>`` inside it, or of the element it opens), so
``page.html#install`` opens there; the title is ``<title>``, else the first heading, else the
file name. The page's declared charset is honoured; without one, UTF-8 if it decodes as
such, else windows-1252, as browsers do. A page past libxml2's limits (elements nested 256 deep)
is refused: the parser drops the rest and recovers, and what it dropped would be lost unsaid.
"""

from __future__ import annotations

import re
from typing import Any

from searchain.documents.extracted import Extracted, Unreadable, file_title
from searchain.documents.sections import SectionBuilder

_SKIP = {"script", "style", "template", "noscript", "head", "svg", "math", "iframe", "object"}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = {
    "p", "div", "li", "dt", "dd", "tr", "br", "hr", "pre", "blockquote", "section", "article",
    "header", "footer", "main", "aside", "nav", "ul", "ol", "dl", "table", "figure",
    "figcaption", "form", "fieldset", "address", "details", "summary", "caption",
}  # fmt: skip
_CELLS = {"td", "th"}
_LIMIT = re.compile(r"Excessive depth|huge", re.IGNORECASE)
"""A limit libxml2 reports (as a resource limit from 2.13, an internal error before)."""
_HUGE = re.compile(r",? use XML_PARSE_HUGE option")
"""The advice to libxml2's callers in its message, not a reader's."""
_CHARSET = re.compile(rb"<meta[^>]+charset|<\?xml[^>]+encoding", re.IGNORECASE)


def _is_utf8(data: bytes) -> bool:
    """Whether a page that declares no charset is UTF-8 (else browsers assume windows-1252)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _anchor(heading: Any) -> str:
    if heading.get("id"):
        return str(heading.get("id"))
    for a in heading.iter("a"):
        if a.get("id") or a.get("name"):
            return str(a.get("id") or a.get("name"))
    parent = heading.getparent()
    if parent is not None and parent.get("id") and len(parent) and parent[0] is heading:
        return str(parent.get("id"))
    return ""


def extract(data: bytes, name: str) -> Extracted:
    """``data``'s visible text, a section per heading."""
    import lxml.etree
    import lxml.html

    declared = _CHARSET.search(data[:4096])
    encoding = None if declared else ("utf-8" if _is_utf8(data) else "windows-1252")
    parser = lxml.html.HTMLParser(encoding=encoding)
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise Unreadable(f"not readable HTML ({exc})") from None
    for error in parser.error_log:  # libxml2 drops what lies past a limit, and recovers
        if error.type_name == "ERR_RESOURCE_LIMIT" or _LIMIT.search(error.message):
            limit = _HUGE.sub("", error.message).strip()
            raise Unreadable(f"past the HTML parser's limits ({limit}): the rest would go unread")
    builder = SectionBuilder()
    line: list[str] = []
    heading: tuple[Any, int, list[str]] | None = None  # the element, its level, its text so far

    def put(text: str | None) -> None:
        if text:
            (heading[2] if heading else line).append(text)

    def end_line() -> None:
        if line:
            builder.block(" ".join("".join(line).split()))
            line.clear()

    first_heading = ""
    walker = lxml.etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, element in walker:
        tag = element.tag if isinstance(element.tag, str) else None
        if event in ("comment", "pi"):
            put(element.tail)  # the text after a comment is shown
        elif event == "start":
            if tag is None or tag.lower() in _SKIP:
                walker.skip_subtree()  # its end event still comes, with its tail
                continue
            tag = tag.lower()
            if tag in _HEADINGS and heading is None:
                end_line()
                heading = (element, _HEADINGS[tag], [])
            elif tag in _BLOCKS:
                end_line()
            elif tag in _CELLS and line:
                line.append(" | ")
            put(element.text)
        else:
            if tag is not None and heading is not None and element is heading[0]:
                text = " ".join("".join(heading[2]).split())
                if text:
                    builder.heading(heading[1], text, _anchor(element))
                    first_heading = first_heading or text
                heading = None
            elif tag is not None and tag.lower() in _BLOCKS:
                end_line()
            put(element.tail)
    end_line()
    sections = builder.finish()
    if not sections:
        raise Unreadable("no visible text")
    found = root.find(".//title")
    title = " ".join((found.text_content() if found is not None else "").split())
    return Extracted(title or first_heading or file_title(name), sections)
