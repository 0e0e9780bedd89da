"""A person's own documents as passages: PDF, HTML, Markdown, DOCX and plain text.

Each file's text is extracted offline (:mod:`.pdf`, :mod:`.html`, :mod:`.markdown`, :mod:`.docx`,
:mod:`.plain`: one module a format, each ``extract(data, name)``), cut into sections that a
passage never crosses (a PDF page, the text under one heading), split into passages of about 100
words (:mod:`.split`), and every passage carries its :class:`~searchain.types.Source`: file,
page or heading path and anchor, character offsets. :mod:`.collection` walks folders for the
index build and keeps, for its summary, every file it skipped and why.

PDF, HTML and DOCX need the ``documents`` extra (pypdfium2, lxml, python-docx); Markdown and
plain text need nothing more than searchain itself.
"""
