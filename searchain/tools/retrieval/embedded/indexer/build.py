"""An index built from passages: read, encoded on every core, written in a version of its own.

The passages are encoded and tokenised by worker processes (:mod:`.workers`) while this one
writes the passage store and counts the postings within a memory budget
(:mod:`..postings.segments`); the postings, vocabulary and manifest follow, every file is
checksummed, and the new version is switched in by one rename (:mod:`..directory.files`), so an
interrupted build leaves the old index or none, never half of one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from searchain.errors import TargetExists
from searchain.indexed import Described
from searchain.tools.retrieval.corpus.readers import Corpus, CorpusError
from searchain.tools.retrieval.embedded.analysis.tokenizer import Tokenizer
from searchain.tools.retrieval.embedded.directory.checked import sealed
from searchain.tools.retrieval.embedded.directory.files import (
    MANIFEST,
    build_lock,
    check_replaceable,
    check_space,
    file_table,
    flushing,
    new_version,
    of_documents,
    publish,
    recover_held,
    write_documents,
)
from searchain.tools.retrieval.embedded.index import FORMAT, BM25Index
from searchain.tools.retrieval.embedded.postings.segments import PostingsBuilder
from searchain.tools.retrieval.embedded.store import passages as passage_store
from searchain.tools.retrieval.embedded.store.passages import PassageStoreWriter
from searchain.tools.retrieval.scoring import check_bm25_parameters
from searchain.types import Passage


@dataclass(frozen=True, kw_only=True)
class Options:
    """How an index is built; any of them builds an index every search reads the same way."""

    k1: float = 1.5
    """BM25 k1 (the papers' BM25 implementations, Pyserini's 0.9 aside)."""
    b: float = 0.75
    """BM25 b."""
    tokenizer: str = "stem"
    """``stem`` (stop words, stemming) or ``standard`` (as Elasticsearch's); see
    :class:`..analysis.tokenizer.Tokenizer`."""
    overwrite: bool = False
    """Replace an index already at the path (otherwise refused)."""
    memory: int | None = None
    """Bytes for the build's working buffers (``None``: a quarter of the machine's, at most
    4 GiB); past it, counted passages go to disk as segments."""
    workers: int | None = None
    """Processes that encode and tokenise the passages (``None``: one fewer than the cores; 0:
    none, this process does it); any number builds the same index."""


def build(
    passages: Iterable[Passage],
    path: str | Path,
    options: Options = Options(),
    *,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> BM25Index:
    """Index ``passages`` (title and text) into ``path`` and return the loaded index.

    An existing index is replaced only with ``options.overwrite``. ``progress`` is called with
    the number of passages read so far; ``stage`` with a line when the build moves on to its
    next stage. ``passages`` that are documents (:class:`~searchain.indexed.Described`) make a
    documents index: it also records their settings, which documents it holds (path, content
    hash, passages), the passages' lengths and term frequencies, which is what an update reads.
    """
    path = Path(path)
    k1, b, tokenizer = options.k1, options.b, options.tokenizer
    Tokenizer(tokenizer)  # reject an unknown tokenizer before touching the disk
    check_bm25_parameters(k1, b)
    from searchain.tools.retrieval.embedded.indexer.workers import encoded_batches, worker_count

    # Refused before touching the disk; the store compresses on the cores workers leave.
    threads = max(1, len(os.sched_getaffinity(0)) - worker_count(options.workers))
    with build_lock(path):  # a second build of this index is refused while it runs
        recover_held(path)  # finish or undo a replacement a crash interrupted, drop leftovers
        _check_target(path, options.overwrite)
        check_replaceable(path)
        documents = passages if isinstance(passages, Described) else None
        if isinstance(passages, Corpus):  # a PDF's bytes say little of its text's size
            check_space(path, passages.text_bytes())
        # The build's machinery compiles with numba: imported here, never by opening an index.
        from searchain.tools.retrieval.embedded.indexer.encode import TermMap

        tmp = new_version(path)
        store = PassageStoreWriter(tmp, threads=threads)
        try:
            with flushing() as flush:  # each part sent to disk once whole, meanwhile
                matrix = PostingsBuilder(tmp / "segments", options.memory)
                maps: dict[int, TermMap] = {}
                for worker, batch in encoded_batches(passages, tokenizer, options.workers):
                    store.add(batch.lines, batch.line_lengths)
                    tokens = maps.setdefault(worker, TermMap()).resolve(batch, matrix.vocab)
                    matrix.add(tokens, batch.lengths)
                    if progress:
                        progress(matrix.n_docs)
                if not matrix.n_docs:  # a corpus file says so itself, naming the file
                    raise CorpusError("the corpus has no passages")
                store.close()
                for name in passage_store.FILES:
                    flush(tmp / name)
                if stage:
                    stage(
                        f"writing the postings: {len(matrix.vocab):,} terms, "
                        f"{matrix.pending_segments} segment(s)"
                    )
                matrix.write(tmp / "bm25", k1, b)
                flush(tmp / "bm25")
                (tmp / "segments").rmdir()
                manifest = {
                    "format": FORMAT,
                    "passages": matrix.n_docs,
                    "k1": k1,
                    "b": b,
                    "tokenizer": tokenizer,
                    "stemmer": Tokenizer(tokenizer).version,
                }
                if documents is not None:
                    manifest["documents"] = documents.settings()
                    write_documents(tmp, documents.indexed, matrix.lengths())
                if stage:
                    stage("checksumming the index files")
                manifest["files"] = file_table(tmp, MANIFEST)
            (tmp / MANIFEST).write_text(sealed(manifest))
            publish(tmp, path)
        except BaseException:
            store.abort()
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    index = BM25Index.load(path)
    # The search kernels compile on their first use (seconds, not milliseconds) and are cached
    # on disk after that: pay it here, once per installation, not on the first question.
    if stage:
        stage("loading the search kernels (compiled once after an install, then cached)")
    index.search_batch(["warm up", "the search kernels"])
    index.search("warm up")
    return index


def _check_target(path: Path, overwrite: bool) -> None:
    """TargetExists for something at ``path`` that ``overwrite`` does not let a build replace."""
    if not path.exists() or (overwrite and (path / MANIFEST).is_file()):
        return
    index = (path / MANIFEST).is_file()
    named = ("overwrite", "update") if of_documents(path / MANIFEST) else ("overwrite",)
    hint = ", or {update} to bring it up to date" * (named[-1] == "update")
    raise TargetExists(
        "{path} already exists: "
        + ("pass {overwrite} to replace it" + hint if index else "choose {index}"),
        settings=named if index else ("index",),
        path=path,
    )
