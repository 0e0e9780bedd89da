"""The embedded BM25 index, built and searched for real on disk."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import threading
import warnings
from pathlib import Path

import pytest

from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import CorpusError, read_corpus
from searchain.tools.retrieval.embedded.directory.checked import sealed
from searchain.tools.retrieval.embedded.index import (
    MANIFEST,
    BM25Index,
    IndexLoadError,
    IndexTokenizerWarning,
)
from tests.conftest import cli_line

CORPUS = [
    {"id": "p1", "title": "Spirit If...", "text": "Spirit If... is the debut album of Kevin Drew."},
    {"id": "p2", "title": "Kevin Drew", "text": "Kevin Drew was born in Toronto, Ontario."},
    {
        "id": "p3",
        "title": "Toronto Coach Terminal",
        "text": "Greyhound buses in Toronto leave from the Toronto Coach Terminal.",
    },
    {"id": "p4", "title": "Arthur's Magazine", "text": "Arthur's Magazine was started in 1844."},
    {"id": "p5", "title": "First for Women", "text": "First for Women was started in 1989."},
]


def entries(folder: Path) -> list[str]:
    """What a user sees in ``folder`` (an index's versions are hidden beside its link)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def write_corpus(path: Path, rows: list, prefix: bytes = b"") -> Path:
    def line(row) -> bytes:
        if isinstance(row, bytes):
            return row
        return (row if isinstance(row, str) else json.dumps(row)).encode()

    path.write_bytes(prefix + b"".join(line(r) + b"\n" for r in rows))
    return path


@pytest.fixture
def index(tmp_path) -> BM25Index:
    corpus = write_corpus(tmp_path / "corpus.jsonl", CORPUS)
    return embedded.build(read_corpus(corpus), tmp_path / "index")


def test_search_ranks_title_and_text_matches(index):
    hits = index.search("Where was Kevin Drew born?", k=3)
    assert hits[0].id == "p2" and hits[0].title == "Kevin Drew"
    assert hits[0].text == "Kevin Drew was born in Toronto, Ontario."
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.score > 0 for h in hits)
    # The title alone is searched too: "Coach Terminal" only appears in p3.
    assert index.search("coach terminal")[0].id == "p3"
    assert index.search("started 1844")[0].id == "p4"


def test_stemming_and_stop_words(index):
    assert index.search("greyhound bus leaving")[0].id == "p3"  # buses / leave stemmed
    assert index.search("the of and") == []  # nothing but stop words
    assert index.search("zeppelin") == []  # no shared term: no passage rather than a random one


def test_saved_index_loads_memory_mapped_with_identical_results(index, tmp_path):
    again = BM25Index.load(tmp_path / "index", mmap=True)
    assert len(again) == 5
    for query in ("Kevin Drew", "magazine started", "Toronto buses"):
        assert again.search(query, k=5) == index.search(query, k=5)
    assert index.search_batch(["Kevin Drew", "1989"], k=1) == [
        index.search("Kevin Drew"),
        index.search("1989"),
    ]


def test_concurrent_searches_agree(index):
    expected = {q: index.search(q, k=2) for q in ("Kevin Drew", "1989", "coach", "album")}
    results, errors = [], []

    def worker():
        try:
            for _ in range(25):
                for q, want in expected.items():
                    results.append(index.search(q, k=2) == want)
        except Exception as exc:  # surfaces in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 400 and all(results)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"corpus.jsonl:2: not valid JSON"),
        ('["a list"]', r"corpus.jsonl:2: expected a JSON object .* one object per line"),
        ('{"id": "x", "title": "t"}', r'corpus.jsonl:2: missing or empty "text"'),
        # Issue 33, case 12: another field name was "missing text", naming no accepted one.
        ('{"id": "x", "contents": "t"}', r'"text" \(each line is .*; this one has: contents, id\)'),
        ('{"id": "x", "text": "   "}', r'corpus.jsonl:2: missing or empty "text"'),
        ('{"title": "t", "text": "no id"}', r'corpus.jsonl:2: missing "id"'),
        ('{"id": "p1", "text": "again"}', r"corpus.jsonl:2: id 'p1' repeats line 1"),
        ('{"id": "x", "text": ' + "[" * 200_000 + "]" * 200_000 + "}", r"nested too deeply"),
        (b'{"id": "x", "text": "\xff\xfe"}', r"corpus.jsonl:2: not UTF-8"),
    ],
)
def test_bad_corpus_lines_name_the_line_and_leave_no_index(tmp_path, line, message):
    corpus = write_corpus(tmp_path / "corpus.jsonl", [CORPUS[0], line, CORPUS[1]])
    with pytest.raises(CorpusError, match=message):
        embedded.build(read_corpus(corpus), tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]  # nothing, not hidden


def test_existing_index_is_replaced_only_when_asked(index, tmp_path):
    corpus = write_corpus(tmp_path / "small.jsonl", CORPUS[:2])
    with pytest.raises(FileExistsError, match=r"pass overwrite=True to replace it$") as refused:
        embedded.build(read_corpus(corpus), tmp_path / "index")
    assert cli_line(refused.value).endswith("already exists: pass --overwrite to replace it")
    assert len(BM25Index.load(tmp_path / "index")) == 5  # untouched
    rebuilt = embedded.build(
        read_corpus(corpus), tmp_path / "index", embedded.Options(overwrite=True)
    )
    assert len(rebuilt) == 2
    assert entries(tmp_path) == ["corpus.jsonl", "index", "small.jsonl"]
    # `index` is a link to the newer of two versions: the replaced one stays a generation,
    # for a reader that resolved the link before the switch (test_index_files.py).
    old, new = sorted(p for p in tmp_path.iterdir() if p.name.startswith(".index."))
    assert (tmp_path / "index").resolve() == new.resolve() and len(BM25Index.load(old)) == 5


def test_a_directory_that_is_not_an_index_is_never_overwritten(tmp_path):
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine")
    corpus = write_corpus(tmp_path / "c.jsonl", CORPUS)
    with pytest.raises(FileExistsError, match=r"already exists: choose another path$") as refused:
        embedded.build(read_corpus(corpus), precious, embedded.Options(overwrite=True))
    assert cli_line(refused.value) == f"{precious} already exists: choose another --index"
    assert (precious / "keep.txt").read_text() == "mine"


def test_broken_bad_corpus_during_rebuild_keeps_the_old_index(index, tmp_path):
    corpus = write_corpus(tmp_path / "bad.jsonl", [CORPUS[0], "{oops"])
    with pytest.raises(CorpusError):
        embedded.build(read_corpus(corpus), tmp_path / "index", embedded.Options(overwrite=True))
    assert BM25Index.load(tmp_path / "index").search("Kevin Drew born")[0].id == "p2"


def test_missing_and_damaged_indexes_get_clear_errors(index, tmp_path):
    with pytest.raises(
        IndexLoadError, match=r"is not a searchain index.*embedded.build\(passages, \S*nowhere\)"
    ) as refused:
        BM25Index.load(tmp_path / "nowhere")
    assert cli_line(refused.value).endswith(
        f"build one with `searchain index CORPUS.jsonl --index {tmp_path / 'nowhere'}`"
    )
    shutil.copytree(index.path, tmp_path / "other")
    (tmp_path / "index" / "passages.blocks.npy").unlink()
    with pytest.raises(IndexLoadError, match="damaged searchain index"):
        BM25Index.load(tmp_path / "index")
    # A format-3 index without its table of blocks is not read as a format-2 one.
    (tmp_path / "other" / "passages.firsts.npy").unlink()
    with pytest.raises(IndexLoadError, match=r"damaged searchain index \(passages.firsts.npy is"):
        BM25Index.load(tmp_path / "other")


def flip_byte(file: Path, at: int) -> None:
    """Change one byte in place: same size, different content."""
    data = bytearray(file.read_bytes())
    data[at] ^= 0x20
    file.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("file", "at"),
    [
        ("bm25/vocab.terms.bin", 3),
        ("bm25/block_peak.npy", -2),  # a garbled bound
        ("bm25/indptr.npy", -2),
        ("passages.blocks.npy", -2),
        ("passages.firsts.npy", -2),
    ],
)
def test_a_damaged_table_is_refused_at_open(index, file, at):
    flip_byte(index.path / file, at)
    with pytest.raises(IndexLoadError, match=rf"damaged searchain index \({file}"):
        BM25Index.load(index.path)


@pytest.mark.parametrize(
    ("file", "at"),
    [
        ("passages.zst", 40),  # an edited passage
        ("bm25/postings.bin", -12),  # a garbled posting
    ],
)
def test_a_damaged_large_file_is_refused_when_a_search_first_reads_it(index, file, at):
    """The two large files are checked chunk by chunk as they are first read, not at open."""
    flip_byte(index.path / file, at)
    opened = BM25Index.load(index.path)  # sizes checked: the content waits for a search
    with pytest.raises(
        IndexLoadError,
        match=rf"damaged searchain index \({re.escape(file)}, bytes 0 to [\d,]+, does not "
        rf"match its checksum\): BM25Index.verify\({re.escape(str(index.path))}\)",
    ) as refused:
        opened.search("album drew", k=5)
    assert f"`searchain index --verify {index.path}` checks all of it" in cli_line(refused.value)


def test_verify_reads_every_byte_of_a_large_index(tmp_path):
    """The large files are not read at open; --verify checks their content."""
    corpus = write_corpus(tmp_path / "c.jsonl", CORPUS)
    built = embedded.build(read_corpus(corpus), tmp_path / "index")
    assert BM25Index.verify(tmp_path / "index").startswith(f"{tmp_path / 'index'}: 5 passages")
    flip_byte(built.path / "passages.zst", 40)
    assert len(BM25Index.load(tmp_path / "index")) == 5  # same size: not seen at open
    with pytest.raises(IndexLoadError, match=r"passages.zst, bytes 0 to [\d,]+, does not match"):
        BM25Index.verify(tmp_path / "index")


def test_empty_corpus_is_an_error(tmp_path):
    corpus = write_corpus(tmp_path / "empty.jsonl", ["", "  "])
    with pytest.raises(CorpusError, match="no passages"):
        embedded.build(read_corpus(corpus), tmp_path / "index")
    assert not (tmp_path / "index").exists()


def test_a_corpus_of_a_header_alone_is_named_in_its_error(tmp_path):
    """A TSV whose header has no record under it was "the corpus has no passages", no file named
    (a corpus of blank lines named its file); passages given as a list have no file to name."""
    header = tmp_path / "header.tsv"
    header.write_text("id\ttext\ttitle\n", encoding="utf-8")
    with pytest.raises(
        CorpusError, match=rf"^{re.escape(str(header))}: the corpus has no passages"
    ):
        embedded.build(read_corpus(header), tmp_path / "index")
    with pytest.raises(CorpusError, match=r"^the corpus has no passages$"):
        embedded.build([], tmp_path / "index")
    assert not (tmp_path / "index").exists()


def test_postings_score_as_bm25s_own_indexing(tmp_path):
    """The segmented builder's postings, decoded and scored, are bm25s's Lucene BM25 scores."""
    import bm25s
    import numpy as np

    from searchain.tools.retrieval.embedded.index import Tokenizer
    from searchain.tools.retrieval.embedded.indexer.encode import Encoder, TermMap
    from searchain.tools.retrieval.embedded.postings.compact import CompactPostings
    from searchain.tools.retrieval.embedded.postings.segments import MIN_MEMORY, PostingsBuilder
    from searchain.tools.retrieval.embedded.termdict.vocabulary import MappedVocabulary

    texts = [f"{r['title']} {r['text']}" for r in CORPUS] * 3 + ["", "kevin kevin kevin drew"]
    tokenize = Tokenizer()
    builder = PostingsBuilder(tmp_path / "segments", MIN_MEMORY)
    builder._tokens_per_segment = 9  # several segments and term ranges, some partial
    builder._postings_per_range = 9
    encoder, terms = Encoder("stem"), TermMap()
    for i, text in enumerate(texts):
        batch = encoder.encode([(str(i), "", text, "")])
        builder.add(terms.resolve(batch, builder.vocab), batch.lengths)
    builder.write(tmp_path / "bm25", k1=1.2, b=0.75)
    assert builder.segments > 3
    ours = CompactPostings.load(tmp_path / "bm25")
    vocab = MappedVocabulary(tmp_path / "bm25")
    reference = bm25s.BM25(k1=1.2, b=0.75, method="lucene", idf_method="lucene")
    reference.index([tokenize(t) for t in texts], show_progress=False, create_empty_token=False)
    assert len(ours.norm) == 17
    assert set(builder.vocab.terms()) == set(reference.vocab_dict)
    for column, term in enumerate(builder.vocab.terms()):
        assert vocab.get(term) == column  # the mapped vocabulary, as built
        theirs = reference.vocab_dict[term]
        docs, scores = ours.scores(column)
        c, d = reference.scores["indptr"][theirs], reference.scores["indptr"][theirs + 1]
        assert list(docs) == list(reference.scores["indices"][c:d])
        np.testing.assert_allclose(scores, reference.scores["data"][c:d], rtol=1e-5)
        peaks = ours.block_peak[ours.blocks[column] : ours.blocks[column + 1]]
        assert peaks.max() == scores.max()
    assert not list((tmp_path / "segments").iterdir())  # segments removed once merged


@pytest.mark.parametrize(
    ("k1", "b", "message"),
    [
        (float("nan"), 0.75, "k1 must be"),
        (float("inf"), 0.75, "k1 must be"),
        (-1.0, 0.75, "k1 must be"),
        (1.2, float("nan"), "b must be"),
        (1.2, 1.5, "b must be"),
    ],
)
def test_bm25_parameters_are_checked_before_anything_is_written(index, tmp_path, k1, b, message):
    corpus = tmp_path / "corpus.jsonl"
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ValueError, match=message):
        embedded.build(
            read_corpus(corpus), index.path, embedded.Options(k1=k1, b=b, overwrite=True)
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert BM25Index.load(index.path).search("Toronto")  # the good index still answers


def test_a_byte_order_mark_and_lone_surrogate_escapes_are_read(tmp_path):
    row = {"id": "bom\udc80", "title": "T \ud800", "text": "Kevin Drew \udfff was born"}
    corpus = write_corpus(tmp_path / "c.jsonl", [row], prefix=b"\xef\xbb\xbf")
    index = embedded.build(read_corpus(corpus), tmp_path / "index")
    [hit] = index.search("Kevin Drew", k=1)
    assert (hit.id, hit.title, hit.text) == ("bom\ufffd", "T \ufffd", "Kevin Drew \ufffd was born")


def test_an_index_opened_with_another_stemmer_release_says_so(tmp_path):
    """PyStemmer 3.0 stems "international" to "intern", 3.1 to "internat": an index built with
    one and queried with the other misses passages, so opening it warns, naming both."""
    corpus = write_corpus(tmp_path / "c.jsonl", CORPUS)
    index = embedded.build(read_corpus(corpus), tmp_path / "idx")
    manifest_path = index.path / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    installed = importlib.metadata.version("PyStemmer")
    assert manifest["stemmer"] == installed
    manifest["stemmer"] = "3.0.0"
    manifest_path.write_text(sealed(manifest))  # as that release would have written it
    with pytest.warns(IndexTokenizerWarning, match=f"PyStemmer 3.0.0 .* has {installed}"):
        reopened = BM25Index.load(tmp_path / "idx")
    with pytest.warns(IndexTokenizerWarning) as caught:
        BM25Index.load(tmp_path / "idx")
    assert str(caught[0].message).startswith(f"index {tmp_path / 'idx'}: ")  # not .idx.<stamp>
    assert caught[0].filename == __file__  # points at the caller, not at searchain's insides
    assert reopened.search("Kevin Drew born", k=1)[0].id == "p2"


def test_an_index_of_the_same_stemmer_or_none_opens_without_a_warning(tmp_path):
    corpus = write_corpus(tmp_path / "c.jsonl", CORPUS)
    embedded.build(read_corpus(corpus), tmp_path / "stem")
    standard = embedded.build(
        read_corpus(corpus), tmp_path / "standard", embedded.Options(tokenizer="standard")
    )
    assert json.loads((standard.path / MANIFEST).read_text())["stemmer"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BM25Index.load(tmp_path / "stem")
        BM25Index.load(tmp_path / "standard")


def test_the_cli_shows_its_own_warnings_as_one_line():
    from searchain.cli.app import _one_line

    line = _one_line(IndexTokenizerWarning("index x: rebuild it"), IndexTokenizerWarning, "f.py", 3)
    assert line == "warning: index x: rebuild it\n"
    other = _one_line(UserWarning("theirs"), UserWarning, "lib.py", 7)
    assert other.startswith("lib.py:7: UserWarning: theirs")
