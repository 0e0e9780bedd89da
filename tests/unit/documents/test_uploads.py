"""Files sent in a message: the block shapes read, the ones refused, the bounds (issue 43)."""

from __future__ import annotations

import base64

import pytest

from searchain.documents.uploads import (
    SentFile,
    Upload,
    UploadBounds,
    read_uploads,
    sent_file,
    sent_files,
)
from tests.documents import PAINTERS, docx_bytes, encrypted, pdf_bytes

MIB = 1 << 20
BOUNDS = UploadBounds(max_bytes=MIB, max_pages=10, per_thread=3)
PDF = pdf_bytes(PAINTERS, title="Painters of Florence", scanned=[1])


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def chat_ui(data: bytes, name: str = "painters.pdf", mime: str = "application/pdf") -> dict:
    """Agent Chat UI's "Upload PDF or Image" block."""
    return {"type": "file", "mimeType": mime, "data": b64(data), "metadata": {"filename": name}}


@pytest.mark.parametrize(
    "block",
    [
        chat_ui(PDF),
        {"type": "file", "mime_type": "application/pdf", "base64": b64(PDF),
         "extras": {"filename": "painters.pdf"}},
        {"type": "file", "source_type": "base64", "mime_type": "application/pdf",
         "data": b64(PDF), "filename": "painters.pdf"},
        {"type": "file", "mimeType": "application/octet-stream", "data": b64(PDF),
         "metadata": {"filename": "painters.pdf"}},
        {"type": "file", "data": b64(PDF), "metadata": {"filename": "C:\\Users\\painters.pdf"}},
    ],
    ids=["agent-chat-ui", "langchain-v1", "langchain-v0", "generic-type-by-name", "path-in-name"],
)  # fmt: skip
def test_each_shape_a_file_is_sent_in_reads_the_same_pdf(block):
    [sent] = sent_files([{"type": "text", "text": "Who?"}, block], MIB)
    assert (sent.name, sent.fmt, sent.data) == ("painters.pdf", "pdf", PDF)
    [upload] = read_uploads([sent], [], BOUNDS)
    assert upload.pages == 3 and upload.empty_pages == [2]
    assert [(p.id, p.title, p.source.page) for p in upload.passages] == [
        ("painters.pdf#1", "Painters of Florence", 1),
        ("painters.pdf#2", "Painters of Florence", 3),
    ]
    assert upload.described() == (
        "read painters.pdf: 3 pages, 2 passages (no text layer on p. 2: searchain does no OCR)"
    )


def test_text_markdown_and_docx_are_read_and_text_blocks_are_not_files():
    blocks = [
        "a bare string is text",
        {"type": "text", "text": "Who?"},
        {"type": "text-plain", "text": "Notes on Giotto.", "title": "notes.txt"},
        chat_ui(b"# Giotto\n\nA painter.", "giotto.md", "text/markdown"),
        chat_ui(docx_bytes([("h1", "Giotto"), ("p", "A painter.")]), "giotto.docx",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ]  # fmt: skip
    files = sent_files(blocks, MIB)
    assert [(f.name, f.fmt) for f in files] == [
        ("notes.txt", "text"), ("giotto.md", "markdown"), ("giotto.docx", "docx")
    ]  # fmt: skip
    uploads = read_uploads(files, [], UploadBounds(MIB, 10, 5))
    assert [u.passages[0].source.section for u in uploads] == ["", "Giotto", "Giotto"]
    assert sent_files("plain text content", MIB) == []


@pytest.mark.parametrize(
    ("block", "said"),
    [
        ({"type": "image", "mimeType": "image/png", "data": "iVBO", "metadata": {"name": "a.png"}},
         "a.png is an 'image' block (an image: searchain does no OCR): searchain reads files"),
        ({"type": "image_url", "image_url": {"url": "https://x/a.png"}}, "does no OCR"),
        ({"type": "audio", "base64": "AAAA", "mime_type": "audio/wav"},
         "the message is an 'audio' block: searchain reads files of type PDF, HTML"),
        ({"text": "no type"}, "a block with no type"),
        (["a", "list"], "block 2 of the message is a list"),
        ({"type": "file", "url": "https://example.com/a.pdf", "mime_type": "application/pdf"},
         "file 1 is sent by URL or file id: searchain reads a file's bytes"),
        ({"type": "file", "file_id": "file-abc", "mime_type": "application/pdf"}, "by URL or"),
        ({"type": "file", "source_type": "url", "url": "https://x", "mime_type": "text/plain"},
         "by URL or file id"),
        ({"type": "file", "mimeType": "image/png", "data": "aGk=", "metadata": {"name": "x.pdf"}},
         "x.pdf is image/png: searchain reads files of type PDF"),
        ({"type": "file", "mimeType": "application/zip", "data": "aGk="}, "is application/zip"),
        ({"type": "file", "data": "aGk=", "metadata": {"filename": "a.exe"}}, "of no stated type"),
        ({"type": "file", "mimeType": "application/pdf", "data": "not base64!"}, "is not base64"),
        ({"type": "file", "mimeType": "application/pdf", "data": ""}, "carries no data"),
        ({"type": "file", "mimeType": "application/pdf", "data": 42}, "carries no data"),
        ({"type": "file", "mimeType": "application/pdf"}, "carries no data"),
    ],
    ids=["image", "image-url", "audio", "no-type", "not-a-dict", "url", "file-id", "v0-url",
         "image-as-file", "zip", "unknown-suffix", "bad-base64", "empty", "not-a-string",
         "no-data"],
)  # fmt: skip
def test_a_block_not_read_is_refused_in_one_line_naming_what_is_read(block, said):
    with pytest.raises(ValueError) as refused:
        sent_files([{"type": "text", "text": "Who?"}, block], MIB)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_file_over_the_size_bound_is_refused_before_it_is_decoded():
    big = b"x" * (MIB + 10)
    with pytest.raises(ValueError, match=r"big.txt is 1.0 MiB, over this server's bound of 1 MiB"):
        sent_file(chat_ui(big, "big.txt", "text/plain"), "file 1", MIB)
    with pytest.raises(ValueError, match="SEARCHAIN_UPLOAD_MAX_MIB"):
        sent_file({"type": "text-plain", "text": "é" * MIB}, "file 1", MIB)  # 2 bytes each
    assert sent_file(chat_ui(b"x" * MIB, "edge.txt", "text/plain"), "file 1", MIB).data


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (encrypted(PDF), "painters.pdf cannot be read: encrypted"),
        (pdf_bytes([[]], scanned=[0]), "painters.pdf cannot be read: no text layer"),
        (PDF[: len(PDF) // 3], "painters.pdf cannot be read: not a readable PDF"),
        (b"GIF89a not a pdf", "painters.pdf cannot be read: not a PDF (no %PDF- header)"),
        (pdf_bytes([["one"]] * 11), "painters.pdf has 11 pages, over this server's bound of 10"),
    ],
    ids=["encrypted", "scan-only", "truncated", "not-a-pdf", "too-many-pages"],
)
def test_a_pdf_that_cannot_be_read_or_is_too_long_is_refused(data, said):
    with pytest.raises(ValueError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
        read_uploads([SentFile("painters.pdf", "pdf", data)], [], BOUNDS)
    ten = read_uploads([SentFile("ten.pdf", "pdf", pdf_bytes([["one"]] * 10))], [], BOUNDS)
    assert ten[0].pages == 10  # the bound itself is allowed


def test_text_that_is_not_utf8_or_is_binary_or_empty_is_refused():
    for data, said in [
        (b"caf\xe9", "not UTF-8 text"),
        (b"a\x00b", "binary data"),
        (b"", "empty file"),
        (b"   \n", "no text"),
    ]:
        with pytest.raises(ValueError, match=f"notes.txt cannot be read: .*{said}"):
            read_uploads([SentFile("notes.txt", "text", data)], [], BOUNDS)


def held(name: str, data: bytes) -> Upload:
    return read_uploads([SentFile(name, "text", data)], [], BOUNDS)[0]


def test_a_file_sent_again_is_held_once_and_a_new_one_of_the_same_name_is_renamed():
    first = held("notes.txt", b"Giotto painted.")
    assert read_uploads([SentFile("notes.txt", "text", b"Giotto painted.")], [first], BOUNDS) == []
    [second] = read_uploads([SentFile("notes.txt", "text", b"Cimabue taught.")], [first], BOUNDS)
    assert second.name == "notes (2).txt" and second.passages[0].id == "notes (2).txt#1"
    [third] = read_uploads([SentFile("notes.txt", "text", b"Duccio.")], [first, second], BOUNDS)
    assert third.name == "notes (3).txt"
    [bare] = read_uploads([SentFile("README", "text", b"Other.")], [held("README", b"x")], BOUNDS)
    assert bare.name == "README (2)"


def test_a_thread_holds_at_most_its_bound_of_files_and_a_message_is_taken_whole():
    two = [held("a.txt", b"a"), held("b.txt", b"b")]
    [third] = read_uploads([SentFile("c.txt", "text", b"c")], two, BOUNDS)  # the bound: 3
    assert third.name == "c.txt"
    bound = r"would hold 4 files, over this server's bound of 3 a thread \(SEARCHAIN_UPLOADS_PER_"
    with pytest.raises(ValueError, match=bound + r"THREAD\): start a new thread"):
        read_uploads(
            [SentFile("c.txt", "text", b"c"), SentFile("d.txt", "text", b"d")], two, BOUNDS
        )
    with pytest.raises(ValueError, match="over this server's bound of 0 a thread"):
        read_uploads([SentFile("a.txt", "text", b"a")], [], UploadBounds(MIB, 10, 0))
