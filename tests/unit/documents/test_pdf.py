"""PDF: a section a page, its title from the metadata, scans and encryption named."""

from __future__ import annotations

import re

import pytest

from searchain.documents.extracted import Unreadable
from searchain.documents.formats import extract
from tests.documents import PAINTERS, encrypted, pdf_bytes


def test_each_page_is_a_section_and_a_scanned_page_is_named():
    document = extract(
        "pdf", pdf_bytes(PAINTERS, title="Painters of Florence", scanned=[1]), "p.pdf"
    )
    assert document.title == "Painters of Florence"
    assert [s.page for s in document.sections] == [1, 3]
    assert document.empty_pages == [2]
    assert document.sections[1].text == "\n".join(PAINTERS[2])


def test_without_a_title_the_file_name_titles_it():
    document = extract("pdf", pdf_bytes([["Some text."]]), "reports/annual_report-2024.pdf")
    assert document.title == "annual report 2024"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (encrypted(pdf_bytes([["Secret text."]])), "encrypted: it needs a password to open"),
        (pdf_bytes([[]], scanned=[0]), "no text layer"),
        (pdf_bytes([["Some text."]])[:200], "not a readable PDF"),  # truncated
        (b"%PDF-1.4\n" + bytes(range(256)) * 4, "not a readable PDF"),  # corrupt
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "not a PDF (no %PDF- header)"),  # another type
        (b"", "empty file"),
    ],
    ids=["encrypted", "scanned-only", "truncated", "corrupt", "png-named-pdf", "empty"],
)
def test_a_pdf_that_gives_no_text_says_why(data, reason):
    with pytest.raises(Unreadable, match="^" + re.escape(reason)):
        extract("pdf", data, "x.pdf")


def test_an_owner_password_alone_does_not_stop_reading():
    import io

    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(pdf_bytes([["Open to read."]])))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    assert extract("pdf", out.getvalue(), "x.pdf").sections[0].text == "Open to read."
