"""Folders walked as a person keeps them: what is read, what is left out, what is skipped."""

from __future__ import annotations

import pytest

from searchain.documents.collection import Documents
from searchain.documents.walk import walk
from tests.documents import pdf_bytes, write_folder


def test_a_folder_of_every_type_gives_passages_with_their_sources(tmp_path):
    root = write_folder(tmp_path / "archive")
    documents = Documents([root])
    passages = list(documents)
    by_file = {}
    for passage in passages:
        by_file.setdefault(passage.source.path, []).append(passage)
    assert sorted(by_file) == [
        "guides/page.html", "guides/server.md", "notes.docx", "painters.pdf", "readme.txt"
    ]  # fmt: skip
    pdf = by_file["painters.pdf"]
    assert [(p.title, p.source.page) for p in pdf] == [("Painters of Florence", 1),
                                                       ("Painters of Florence", 3)]  # fmt: skip
    assert "influenced by Giotto" in pdf[1].text
    start = next(p for p in by_file["guides/server.md"] if "scripts/server.sh" in p.text)
    assert (start.title, start.source.section, start.source.anchor) == (
        "Team server", "Team server › Start it", "start-it"
    )  # fmt: skip
    assert start.source.cite() == "guides/server.md § Team server › Start it"
    assert by_file["guides/page.html"][-1].source.fragment() == "#cite"
    assert pdf[1].source.fragment() == "#page=3" and pdf[1].source.cite() == "painters.pdf, p. 3"
    assert documents.summary() == (
        "indexed 5 files, 9 passages; skipped 1: painters.pdf p. 2 (no text layer: a scan? "
        "searchain does no OCR); left out 1 file of other types (1 .png)"
    )


def test_globs_choose_files_by_path_or_name(tmp_path):
    root = write_folder(tmp_path / "archive")
    names = lambda **globs: [rel for rel, _, _ in walk([root], **globs).files]  # noqa: E731
    assert names(include=["*.md"]) == ["guides/server.md"]
    assert names(include=["guides/*"]) == ["guides/page.html", "guides/server.md"]
    assert names(exclude=["guides/*", "*.pdf"]) == ["notes.docx", "readme.txt"]


def test_files_named_on_their_own_are_relative_to_their_common_folder(tmp_path):
    root = write_folder(tmp_path / "archive")
    found = walk([root / "guides" / "server.md", root / "painters.pdf"])
    assert found.root == root
    assert [rel for rel, _, _ in found.files] == ["guides/server.md", "painters.pdf"]


def test_links_are_followed_once_and_loops_and_broken_links_named(tmp_path):
    root = write_folder(tmp_path / "archive")
    (root / "guides" / "up").symlink_to("..")  # a loop back to the root
    (root / "again.md").symlink_to(root / "guides" / "server.md")  # a link to a file: read
    (root / "gone.pdf").symlink_to(root / "missing.pdf")
    (root / "self.md").symlink_to(root / "self.md")
    found = walk([root])
    assert "again.md" in [rel for rel, _, _ in found.files]
    assert {(s.path, s.reason) for s in found.skipped} == {
        ("guides/up", "symbolic link loop"),
        ("gone.pdf", "broken symbolic link"),
        ("self.md", "symbolic link loop"),
    }


def test_a_file_over_the_bound_is_skipped_unread(tmp_path):
    (tmp_path / "big.pdf").write_bytes(pdf_bytes([["word " * 200]] * 40))
    (tmp_path / "small.md").write_text("# Small\n\ntext\n")
    documents = Documents([tmp_path], max_bytes=4096)
    assert [p.source.path for p in documents] == ["small.md"]
    assert documents.skipped[0].path == "big.pdf"
    assert documents.skipped[0].reason.endswith("KiB, over the 4 KiB bound")


def test_a_named_path_that_is_missing_or_no_document_stops_before_any_work(tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    with pytest.raises(FileNotFoundError, match=r"missing\.pdf: does not exist"):
        Documents([tmp_path / "missing.pdf"])
    with pytest.raises(ValueError, match=r"photo\.png is not a document searchain reads: give PDF"):
        Documents([tmp_path / "photo.png"])


def test_a_file_or_folder_named_twice_is_indexed_once(tmp_path):
    root = write_folder(tmp_path / "archive")
    for paths in ([root, root / "guides" / "server.md"], [root, root], [root / "guides", root]):
        found = walk(paths)
        rels = [rel for rel, _, _ in found.files]
        assert len(rels) == len(set(rels)) == 5, paths  # ids stay unique
        assert found.skipped == [], paths  # nothing taken for a link loop


def test_a_second_link_to_a_folder_is_named_as_such_not_as_a_loop(tmp_path):
    root = write_folder(tmp_path / "archive")
    (root / "zlink").symlink_to(root / "guides", target_is_directory=True)
    found = walk([root])
    assert [(s.path, s.reason) for s in found.skipped] == [
        ("zlink", "links to a folder walked already")
    ]
