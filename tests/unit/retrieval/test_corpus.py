"""Corpus files in the formats corpora ship in, plain and compressed, read as a stream."""

from __future__ import annotations

import bz2
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
import zstandard

from searchain.tools.retrieval.corpus import rowscan
from searchain.tools.retrieval.corpus.readers import CorpusError, read_corpus
from tests.conftest import cli_line

ROWS = [
    ("1", "Aaron", 'Aaron ( or ; ""Ahärôn"") is a prophet.'),
    ("2", "Kevin Drew", "Born in Toronto."),
]
COMPRESS = {
    "": lambda b: b,
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".zst": lambda b: zstandard.ZstdCompressor().compress(b),
}


def tsv(rows) -> bytes:
    # As DPR's psgs_w100.tsv: a header, text quoted with doubled quotes.
    body = "".join(f'{i}\t"{text}"\t{title}\n' for i, title, text in rows)
    return ("id\ttext\ttitle\n" + body).encode()


def jsonl(rows, key: str = "id") -> bytes:
    return "".join(
        json.dumps({key: i, "title": title, "text": text.replace('""', '"')}) + "\n"
        for i, title, text in rows
    ).encode()


FORMATS = {"tsv": tsv, "jsonl": jsonl, "beir": lambda rows: jsonl(rows, "_id")}


def write(path: Path, data: bytes, suffix: str) -> Path:
    path = path.with_name(path.name + suffix)
    path.write_bytes(COMPRESS[suffix](data))
    return path


@pytest.mark.parametrize("suffix", list(COMPRESS))
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_plain_or_compressed_reads_the_same_passages(tmp_path, fmt, suffix):
    path = write(tmp_path / f"corpus.{fmt}", FORMATS[fmt](ROWS), suffix)
    corpus = read_corpus(path)
    assert corpus.format == fmt  # found from the first line, whatever the file is called
    passages = list(corpus)
    assert [(p.id, p.title, p.text) for p in passages] == [
        ("1", "Aaron", 'Aaron ( or ; "Ahärôn") is a prophet.'),
        ("2", "Kevin Drew", "Born in Toronto."),
    ]
    assert corpus.position() == 0  # closed once read
    assert corpus.text_bytes() >= len(FORMATS[fmt](ROWS)) // 2


BAD = {
    "tsv": (b"id\ttext\ttitle\n1\tfine\tT\n2\tonly two fields\n", r":3: 2 tab-separated fields"),
    "jsonl": (b'{"id": "1", "text": "fine"}\n{"id": "2", "text": \n', r":2: not valid JSON"),
    "beir": (
        b'{"_id": "1", "text": "fine"}\n{"title": "x", "text": "no id"}\n',
        r':2: missing "_id"',
    ),
}


@pytest.mark.parametrize("suffix", list(COMPRESS))
@pytest.mark.parametrize("fmt", list(BAD))
def test_a_bad_line_is_named_in_every_format_and_compression(tmp_path, fmt, suffix):
    data, message = BAD[fmt]
    path = write(tmp_path / "corpus", data, suffix)
    with pytest.raises(CorpusError, match=f"corpus{suffix.replace('.', '[.]')}{message}"):
        list(read_corpus(path, fmt))


def test_a_tsv_needs_its_header_and_an_unknown_first_line_asks_for_format(tmp_path):
    headless = tmp_path / "c.tsv"
    headless.write_bytes(b"1\ttext\ttitle\n")
    with pytest.raises(CorpusError, match=r"c.tsv:1: a TSV corpus starts with a header"):
        list(read_corpus(headless))
    prose = tmp_path / "c.txt"
    prose.write_bytes(b"just some words\n")
    with pytest.raises(CorpusError, match=r"give fmt='jsonl', 'beir' or 'tsv'$") as refused:
        read_corpus(prose)
    assert cli_line(refused.value).endswith("give --format jsonl, beir or tsv")


def test_a_truncated_compressed_file_is_one_line(tmp_path):
    data = gzip.compress(tsv(ROWS * 200))
    path = tmp_path / "c.tsv.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match=r"c.tsv.gz: cannot be decompressed"):
        list(read_corpus(path))


def test_repeated_ids_are_found_and_a_hash_collision_is_not_one(tmp_path, monkeypatch):
    rows = [("a", "T", "one"), ("b", "T", "two"), ("c", "T", "three"), ("b", "T", "again")]
    path = write(tmp_path / "c.tsv", tsv(rows), ".zst")
    with pytest.raises(CorpusError, match=r"c.tsv.zst:5: id 'b' repeats line 3"):
        list(read_corpus(path))
    # Every id hashing alike: only the real repeat is reported, distinct ids pass.
    monkeypatch.setattr(rowscan, "id_hashes", lambda ids: np.full(len(ids), 7, np.uint64))
    with pytest.raises(CorpusError, match=r"c.tsv.zst:5: id 'b' repeats line 3"):
        list(read_corpus(path))
    distinct = write(tmp_path / "d.tsv", tsv(rows[:3]), "")
    assert [p.id for p in read_corpus(distinct)] == ["a", "b", "c"]


def test_a_tsv_line_csv_cannot_read_is_named_and_its_neighbours_read(tmp_path):
    """A carriage return inside an unquoted field is no TSV record: the line is named, in one
    line, not csv's traceback. Beside it: lines that end in one, and a quoted field that holds
    one and a newline, are read as csv reads them."""
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"id\ttext\ttitle\n1\tfine\tT\n2\tbroken\rhere\tT\n")
    with pytest.raises(CorpusError, match=r"bad\.tsv:3: a carriage return inside an unquoted"):
        list(read_corpus(bad))
    header = write(tmp_path / "header.tsv", b"id\ttext\rx\ttitle\n1\tfine\tT\n", ".gz")
    with pytest.raises(CorpusError, match=r"header\.tsv\.gz:1: a carriage return inside an"):
        list(read_corpus(header))  # the header's line too, and through a compressed stream
    good = tmp_path / "good.tsv"
    good.write_bytes(b'id\ttext\ttitle\r\n1\tfine\tT\r\n2\t"two\r\nlines\tand a tab"\tT\n')
    assert [(p.id, p.text) for p in read_corpus(good)] == [
        ("1", "fine"),
        ("2", "two\r\nlines\tand a tab"),
    ]


@pytest.mark.parametrize(
    "name, content",
    [
        ("header.tsv", b"id\ttext\ttitle\n"),
        ("header-blank.tsv", b"id\ttext\ttitle\n\n\n"),
        ("header.tsv.gz", gzip.compress(b"id\ttext\ttitle\n", mtime=0)),
        ("header.tsv.bz2", bz2.compress(b"id\ttext\ttitle\n")),
        ("header.tsv.zst", zstandard.ZstdCompressor().compress(b"id\ttext\ttitle\n")),
        ("blank.jsonl", b"\n  \n"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_corpus_of_no_passage_names_its_file_to_every_reader(tmp_path, name, content):
    """A header alone was "the corpus has no passages", no file named, and only the embedded
    build said even that; the corpus now says it, so the Elasticsearch load hears it too."""
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=rf"^{re.escape(str(path))}: the corpus has no passages$"):
        list(read_corpus(path))
