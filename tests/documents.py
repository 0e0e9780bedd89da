"""Real documents of every type searchain reads, made by the tests (nothing downloaded).

The PDF writer lays out text in Helvetica a line per string, one page per list, and can make a
page that holds only an image (a scan: no text layer); pypdf encrypts a copy. DOCX files come
from python-docx, HTML and Markdown are written as text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path


def pdf_bytes(
    pages: Sequence[Sequence[str]], *, title: str = "", scanned: Sequence[int] = ()
) -> bytes:
    """A PDF whose page i shows the lines ``pages[i]`` (an image only, if i is in ``scanned``)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    tree = add(b"")  # the page tree, written once its pages are known
    kids = []
    for i, lines in enumerate(pages):
        if i in scanned:
            image = add(
                b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream"
            )
            content = b"q 400 0 0 400 100 200 cm /Im1 Do Q"
            resources = b"<< /XObject << /Im1 %d 0 R >> >>" % image
        else:
            shown = [
                b"("
                + line.replace("\\", "\\\\")
                .replace("(", "\\(")
                .replace(")", "\\)")
                .encode("latin-1")
                + b") Tj T*"
                for line in lines
            ]
            content = b"\n".join([b"BT /F1 11 Tf 14 TL 72 740 Td", *shown, b"ET"])
            resources = b"<< /Font << /F1 %d 0 R >> >>" % font
        stream = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources %s >>" % (tree, stream, resources)
            )
        )
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    info = add(b"<< /Title (%s) >>" % title.encode("latin-1")) if title else 0
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"<< /Size %d /Root %d 0 R" % (len(objects) + 1, catalog)
    trailer += b" /Info %d 0 R >>" % info if info else b" >>"
    out += b"trailer\n%s\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref)
    return bytes(out)


def encrypted(pdf: bytes, password: str = "secret") -> bytes:
    """``pdf`` encrypted with a user password (RC4-128, which pypdf writes without extras)."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    writer.encrypt(password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(blocks: Sequence[tuple[str, str]], *, title: str = "") -> bytes:
    """A DOCX of ``(style, text)`` blocks: ``h1``-``h3`` headings, ``p`` paragraphs, ``table``
    rows (cells split on ``|``)."""
    import docx

    document = docx.Document()
    if title:
        document.core_properties.title = title
    for style, text in blocks:
        if style.startswith("h"):
            document.add_heading(text, int(style[1:]))
        elif style == "table":
            cells = text.split("|")
            table = document.add_table(rows=1, cols=len(cells))
            for cell, value in zip(table.rows[0].cells, cells, strict=True):
                cell.text = value.strip()
        else:
            document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_body(body: bytes) -> bytes:
    """A DOCX whose document.xml body is ``body`` (python-docx's own package around it): the
    shape of a decompression bomb, ``<w:p/>`` repeated (700:1 deflated)."""
    import zipfile

    package = zipfile.ZipFile(io.BytesIO(docx_bytes([("p", "")])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as made:
        for item in package.infolist():
            data = package.read(item.filename)
            if item.filename == "word/document.xml":
                data = data.split(b"<w:body>")[0] + b"<w:body>" + body + b"</w:body></w:document>"
            made.writestr(item.filename, data)
    return out.getvalue()


def pdf_bomb(inflated: int) -> bytes:
    """A one-page PDF whose content stream inflates to about ``inflated`` bytes of text shown
    (deflated some 1000:1): what PDFium must decompress and lay out to read it."""
    import zlib

    shown = b"(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa) Tj "
    stream = zlib.compress(b"BT /F1 12 Tf 72 720 Td " + shown * (inflated // len(shown)) + b"ET", 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R"
        b" >> >> /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)


PAINTERS = [
    ["Giotto di Bondone painted the frescoes of the Arena Chapel in Padua.",
     "The chapel was finished around 1305."],
    [],  # a scanned page: an image, no text layer
    ["Lorenzo Monaco was an Italian painter of the late Gothic.",
     "He was influenced by Giotto and his followers Spinello Aretino and Agnolo Gaddi."],
]  # fmt: skip
"""The pages of ``painters.pdf`` in :func:`write_folder`."""


def write_folder(root: Path) -> Path:
    """A folder of one document of each type (and a few that are not), as a person keeps them."""
    (root / "guides").mkdir(parents=True)
    (root / "painters.pdf").write_bytes(
        pdf_bytes(PAINTERS, title="Painters of Florence", scanned=[1])
    )
    (root / "guides" / "server.md").write_text(
        "# Team server\n\nOne server for many users.\n\n## Start it\n\n"
        "Run `scripts/server.sh` with a keys file.\n\n```\nscripts/server.sh --port 2024\n```\n"
    )
    (root / "guides" / "page.html").write_text(
        "<html><head><title>Reading guide</title><script>var hidden = 1;</script></head>"
        "<body><p>Welcome.</p><h2 id='cite'>Citations</h2><p>Every step cites a passage.</p>"
        "</body></html>"
    )
    (root / "notes.docx").write_bytes(
        docx_bytes(
            [
                ("h1", "Meeting notes"),
                ("p", "The budget was approved in March."),
                ("h2", "Actions"),
                ("table", "Alice | writes the report"),
            ]
        )
    )
    (root / "readme.txt").write_text("Plain notes about the archive.\n")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / ".hidden.md").write_text("# Hidden\n")
    return root
