"""Issue 67, cases 3-6: nothing a file holds is dropped, leaked or overwritten without a word.

Each test builds the hostile file, reads it the way `searchain index` does (``Documents``), and
checks both the file's fate and its neighbours'.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.documents.collection import Documents
from searchain.documents.formats import extract
from searchain.documents.walk import shown
from searchain.page import is_page, render_page

NEIGHBOUR = "# Neighbour\n\nGiotto taught Lorenzo Monaco.\n"


def read(folder: Path) -> tuple[Documents, list[str]]:
    documents = Documents([folder])
    return documents, [" ".join(p.text.split()) for p in documents]


def test_html_nested_past_the_parsers_depth_is_refused_never_cut(tmp_path):
    """400 unclosed <font> tags: lxml stopped at 256 levels and dropped the rows below."""
    rows = "".join(f"<p>row {i}</p>" for i in range(400))
    (tmp_path / "deep.html").write_text(f"<html><body>{'<font>' * 400}{rows}</body></html>")
    (tmp_path / "notes.md").write_text(NEIGHBOUR)
    documents, texts = read(tmp_path)
    assert texts == ["Neighbour Giotto taught Lorenzo Monaco."]
    [skipped] = documents.skipped
    assert skipped.path == "deep.html"
    assert skipped.reason == (
        "past the HTML parser's limits (Excessive depth in document: 256): the rest would go unread"
    )


@pytest.mark.parametrize("depth", [1, 50, 200])
def test_html_nested_within_the_limit_is_read_to_its_last_row(depth):
    rows = "".join(f"<p>row {i}</p>" for i in range(300))
    page = f"<html><body>{'<div>' * depth}{rows}</body></html>".encode()
    text = " ".join(s.text for s in extract("html", page, "a.html").sections)
    assert "row 0" in text and "row 299" in text


@pytest.mark.parametrize(
    "hidden",
    [
        "<script>var token = 'SECRET';</script>",
        "<style>.x { content: 'SECRET' }</style>",
        "<!-- SECRET -->",
        "<SCRIPT type='text/javascript'>SECRET()</SCRIPT >",
        "<template>SECRET</template>",
        "<noscript>SECRET</noscript>",
        "<script>SECRET never closed",
    ],
)
def test_markdowns_raw_html_never_indexes_scripts_styles_or_comments(hidden):
    page = f"# Page\n\n<div>\nShown {hidden}\n</div>\n\nAfter the block.\n".encode()
    text = " ".join(s.text for s in extract("markdown", page, "a.md").sections)
    assert "SECRET" not in text
    assert "Shown" in text and "After the block." in text


def test_a_name_that_is_not_utf8_is_indexed_escaped_and_said(tmp_path):
    """One such name failed the whole walk, and every later --update with it."""
    os.mkdir(os.fsencode(tmp_path) + b"/d\xe9p\xf4t")
    (Path(os.fsencode(tmp_path / "caf").decode() + "\udce9.md")).write_text(NEIGHBOUR)
    with open(os.fsencode(tmp_path) + b"/d\xe9p\xf4t/notes\xff.txt", "wb") as file:
        file.write(b"Notes in a folder whose name is Latin-1.\n")
    documents = Documents([tmp_path])
    passages = list(documents)
    assert sorted(p.source.path for p in passages if p.source) == [
        "caf\\xe9.md",
        "d\\xe9p\\xf4t/notes\\xff.txt",
    ]
    assert documents.escaped == ["caf\\xe9.md", "d\\xe9p\\xf4t", "d\\xe9p\\xf4t/notes\\xff.txt"]
    assert "wrote 3 names not in UTF-8 as caf\\xe9.md, d\\xe9p\\xf4t, " in documents.summary()
    assert documents.skipped == []


@given(st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b))
def test_every_name_is_written_in_utf8_and_distinct_names_stay_distinct(raw):
    name = os.fsdecode(raw)
    written = shown(name)
    written.encode("utf-8")  # never raises
    if raw.decode("utf-8", "replace").encode() == raw:  # valid UTF-8: unchanged
        assert written == name
    else:
        assert "\\x" in written
        assert shown(os.fsdecode(raw + b"a")) != written


def test_a_file_that_becomes_a_fifo_after_the_walk_is_skipped_never_opened(tmp_path):
    (tmp_path / "a.txt").write_text("First file.\n")
    (tmp_path / "b.md").write_text(NEIGHBOUR)
    documents = Documents([tmp_path])  # walked: a.txt is a regular file now
    (tmp_path / "a.txt").unlink()
    os.mkfifo(tmp_path / "a.txt")  # a read of it would wait for a writer for ever
    texts = [" ".join(p.text.split()) for p in documents]
    assert texts == ["Neighbour Giotto taught Lorenzo Monaco."]
    assert [(s.path, s.reason) for s in documents.skipped] == [
        ("a.txt", "unreadable (not a regular file: a FIFO, socket or device)")
    ]


@settings(max_examples=30)
@given(st.text(max_size=300))
def test_only_a_page_searchain_wrote_may_be_written_over(tmp_path_factory, text):
    """A notes file that quoted the page's marker was replaced end to end."""
    path = tmp_path_factory.mktemp("page") / "notes.html"
    quoting = f'<meta name="generator" content="searchain">\n{text}\n</script>\n</body>\n</html>\n'
    path.write_text(quoting)
    assert not is_page(path)
    page = render_page([{"question": "Q?", "answer": "A", "nodes": []}])
    path.write_text(page)
    assert is_page(path)
    path.write_text(page + text + "x")  # a page someone appended to is theirs now
    assert not is_page(path)


def test_searchains_own_page_source_is_no_page():
    import searchain.page.render as render

    assert not is_page(Path(render.__file__))
