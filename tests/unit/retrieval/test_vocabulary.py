"""The mapped vocabulary: every term it was given is found at its column, nothing else is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain import demo_corpus
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.corpus.readers import read_corpus
from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from searchain.tools.retrieval.embedded.termdict import vocabulary
from searchain.tools.retrieval.embedded.termdict.vocabulary import (
    MappedVocabulary,
    Terms,
    write_vocabulary,
)

terms = st.text(min_size=0, max_size=12)


@settings(max_examples=60, deadline=None)
@given(strings=st.lists(st.text(max_size=40), max_size=40), chunk=st.integers(1, 8))
def test_a_builds_hashes_are_each_terms_own_across_chunks(strings, chunk):
    """A build hashes its terms a chunk at a time: each is still :func:`term_hash` of it."""
    real = vocabulary._CHUNK
    vocabulary._CHUNK = chunk
    try:
        hashed = vocabulary.hashed(Terms.of(strings)).tolist()
    finally:
        vocabulary._CHUNK = real
    assert hashed == [vocabulary.term_hash(s) for s in strings]


@settings(max_examples=60, deadline=None)
@given(vocab=st.lists(terms, unique=True, max_size=200), others=st.lists(terms, max_size=50))
def test_every_term_is_found_at_its_column_and_no_other(tmp_path_factory, vocab, others):
    directory = tmp_path_factory.mktemp("vocab")
    encoded = [term.encode() for term in vocab]
    assert vocabulary.term_hashes(encoded).tolist() == [vocabulary.term_hash(t) for t in vocab]
    columns = {term: i for i, term in enumerate(vocab)}
    write_vocabulary(directory, Terms.of(vocab))
    mapped = MappedVocabulary(directory)
    assert len(mapped) == len(vocab)
    assert [mapped.get(term) for term in vocab] == [columns[term] for term in vocab]
    assert [mapped.get(term) for term in others if term not in columns] == [
        None for term in others if term not in columns
    ]
    assert mapped.columns([*others, *vocab]) == [
        columns[t] for t in [*others, *vocab] if t in columns
    ]


def test_the_files_are_the_same_whatever_the_chunk(tmp_path, monkeypatch):
    """Terms are hashed and written a chunk at a time: chunk boundaries change no byte."""
    terms = Terms.of([f"t{i}é{'x' * (i % 5)}" for i in range(50)] + ["", "日本", "𝔘"])
    write_vocabulary(tmp_path, terms)
    monkeypatch.setattr(vocabulary, "_CHUNK", 3)
    (tmp_path / "small").mkdir()
    write_vocabulary(tmp_path / "small", terms)
    for name in vocabulary.FILES:
        assert (tmp_path / name).read_bytes() == (tmp_path / "small" / name).read_bytes(), name
    mapped = MappedVocabulary(tmp_path / "small")
    assert [mapped.get(t) for t in ("t7éxx", "日本", "𝔘", "t7")] == [7, 51, 52, None]


def test_terms_whose_hashes_collide_are_told_apart(tmp_path, monkeypatch):
    monkeypatch.setattr(vocabulary, "term_hash", lambda term: 7)  # every term collides
    monkeypatch.setattr(vocabulary, "term_hashes", lambda terms: np.full(len(terms), 7, np.uint64))
    write_vocabulary(tmp_path, Terms.of(["giotto", "cimabue", "siena"]))
    mapped = MappedVocabulary(tmp_path)
    assert [mapped.get(t) for t in ("siena", "giotto", "cimabue", "florence")] == [2, 0, 1, None]


def test_an_index_holds_the_whole_vocabulary_mapped(tmp_path):
    index = embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    mapped = index.vocab
    assert isinstance(mapped, MappedVocabulary)  # opening parses no JSON
    terms = mapped.terms()
    held = {term: column for column, term in enumerate(terms)}
    assert len(held) == len(terms) == len(mapped) > 3000
    assert {t: mapped.get(t) for t in held} == held
    assert mapped.columns(["monaco", "zzzqx", "lorenzo"]) == [held["monaco"], held["lorenzo"]]
    assert [mapped.get(t) for t in ("zzzqx", "lorenzo monaco", "")] == [None, None, None]


@pytest.mark.parametrize("missing", vocabulary.FILES)
def test_an_index_missing_a_vocabulary_file_is_named_damaged(tmp_path, missing):
    index = embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    (index.path / "bm25" / missing).unlink()
    with pytest.raises(IndexLoadError, match=rf"damaged searchain index \(bm25/{missing} is"):
        BM25Index.load(tmp_path / "demo")


def demo_index_probe(tmp_path: Path, lines: list[str], before_open: str = "") -> list[str]:
    """What a fresh process prints running ``lines`` with the demo index open as ``index``."""
    embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    probe = [
        "import sys, json",
        "from searchain.tools.retrieval.embedded.index import BM25Index",
        before_open,
        f"index = BM25Index.load({str(tmp_path / 'demo')!r})",
        *lines,
    ]
    done = subprocess.run([sys.executable, "-c", "\n".join(probe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_opening_an_index_loads_no_search_kernel_and_parses_no_vocabulary(tmp_path):
    """Open reads a manifest and maps files: numba loads in the background from the first
    search on, SciPy with it, bm25s never."""
    printed = demo_index_probe(
        tmp_path,
        [
            "print(sorted(m for m in ('numba', 'scipy', 'bm25s') if m in sys.modules))",
            "index.search('Lorenzo Monaco')",
            "index.warm().join()  # the thread the search started",
            "print(sorted(m for m in ('numba', 'bm25s') if m in sys.modules))",
        ],
        before_open="json.load = None  # no JSON vocabulary is parsed",
    )
    assert printed == ["[]", "['numba']"]


def test_warming_an_index_loads_its_kernel_in_the_background(tmp_path):
    """``warm`` returns at once and starts one thread however often it is called; the kernel
    loads in it."""
    printed = demo_index_probe(
        tmp_path,
        [
            "thread = index.warm()",
            "print(thread.daemon, index.warm() is thread)",
            "print(index.search('Lorenzo Monaco')[0].title)",
            "thread.join()",
            "print('numba' in sys.modules, index._kernel is not None)",
        ],
    )
    assert printed == ["True True", "Lorenzo Monaco", "True True"]


def test_the_first_searches_need_no_kernel_and_answer_as_it_does(tmp_path):
    """While the kernel cannot load (its lock held here), searches are answered in NumPy; once
    it has loaded they are the kernel's, and the same."""
    queries = ["Who influenced Lorenzo Monaco?", "Where was Kevin Drew born?", "zzzqx", ""]
    printed = demo_index_probe(
        tmp_path,
        [
            "index._kernel_lock.acquire()",
            f"cold = [index.search(q, k=5) for q in {queries!r}]",
            "print(index._kernel is None, 'numba' in sys.modules)",
            "index._kernel_lock.release()",
            "index.warm().join()",
            f"warm = [index.search(q, k=5) for q in {queries!r}]",
            "print(index._kernel is not None, cold == warm, [len(r) for r in cold])",
            "print(cold[0][0].title, cold[0][0].score > 0)",
        ],
    )
    assert printed == ["True False", "True True [5, 5, 0, 0]", "Lorenzo Monaco True"]


def test_a_query_with_more_postings_than_numpy_should_add_waits_for_the_kernel(tmp_path):
    printed = demo_index_probe(
        tmp_path,
        [
            "engine.COLD_POSTINGS = 0",
            "print(index.search('Lorenzo Monaco')[0].title, index._kernel is not None)",
        ],
        before_open="from searchain.tools.retrieval.embedded import index as engine",
    )
    assert printed == ["Lorenzo Monaco True"]


def test_batches_are_scored_by_the_kernel(tmp_path):
    printed = demo_index_probe(
        tmp_path,
        [
            "found = index.search_batch(['Lorenzo Monaco', 'Kevin Drew'])",
            "print(len(found), index._kernel is not None)",
        ],
    )
    assert printed == ["2 True"]


def test_ask_warms_the_index_before_the_llm_plans(tmp_path, monkeypatch):
    """``searchain ask`` builds every component first (``preload``): the index's kernel starts
    loading there, so the LLM's planning hides it."""
    from searchain.context import Context
    from searchain.preload import preload
    from tests.conftest import ScriptedReplies, TableReader

    embedded.build(read_corpus(demo_corpus()), tmp_path / "demo")
    warmed: list[Path] = []
    monkeypatch.setattr(BM25Index, "warm", lambda index: warmed.append(index.path))
    context = Context(
        llm=ScriptedReplies(replies=[]),
        reader=TableReader({}),
        retriever=f"bm25:{tmp_path / 'demo'}",
    )
    preload(context)
    assert warmed == [(tmp_path / "demo").resolve()]
