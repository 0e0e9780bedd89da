"""A documents index brought up to date without a rebuild: ``searchain index --update``.

The folder is walked again with the settings the index was built with, and each file's content
hash is compared with the index's record (``documents.json``): a file whose hash is unchanged
keeps its passages, its postings and its place; a new or changed file is read, split and
tokenised — the costly part of a build, paid for it alone; a file that is gone (or now skipped)
loses its passages. The new version is then merged in one pass over the postings (numba): the
old blocks decoded, kept postings renumbered, the new ones inserted where a build would have put
them (documents in walk order), and every idf, length norm and block peak computed again from
the term frequencies and passage lengths the index keeps, since BM25's statistics (passages,
document frequencies, average length) are those of the live documents only — deleted ones count
nowhere; the passage store keeps the old compressed blocks that hold only kept passages, byte
for byte, and compresses the rest with the old store's dictionary. So the result is, passage
for passage and score for score, the index a fresh build of the same files writes (the tests
compare them; the stored bytes differ: the fresh build trains another dictionary and fills
every block),
and it is published with the same atomic, crash-safe switch: a reader sees the old version or
the new one, and a process killed at any moment leaves one of them, whole.

Terms that occurred only in removed documents keep their (empty) vocabulary entries: a query
with them matches nothing, exactly as in a fresh build.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from searchain.errors import NoIndex, SettingError
from searchain.indexed import Changes, Indexed, Walk
from searchain.tools.retrieval.corpus.readers import CorpusError
from searchain.tools.retrieval.embedded.directory import npy
from searchain.tools.retrieval.embedded.directory.checked import sealed
from searchain.tools.retrieval.embedded.directory.files import (
    DOCUMENTS,
    LENGTHS,
    IndexFilesError,
    build_lock,
    check_files,
    check_replaceable,
    file_table,
    new_version,
    publish,
    recover_held,
    write_documents,
)
from searchain.tools.retrieval.embedded.index import FORMAT, MANIFEST, BM25Index, damaged
from searchain.tools.retrieval.embedded.postings.compact import CompactPostings
from searchain.tools.retrieval.embedded.store.passages import PassageStore, PassageStoreWriter
from searchain.tools.retrieval.embedded.termdict.vocabulary import (
    MappedVocabulary,
    write_vocabulary,
)
from searchain.tools.retrieval.scoring import bm25_idf, bm25_norm
from searchain.types import Passage

if TYPE_CHECKING:
    from searchain.tools.retrieval.embedded.analysis.wordscan import TermIds

W = TypeVar("W", bound=Walk)
"""The walk an update is handed back, as the caller made it."""

PARALLEL_FROM = 100_000
"""New passages past which an update encodes them in worker processes."""


@dataclass
class _Old:
    """The version being updated, as the merge reads it."""

    path: Path
    """Its version directory."""
    manifest: dict[str, Any]
    """Its manifest (parameters, tokenizer, the documents' settings)."""
    table: list[dict[str, Any]]
    """The documents it holds, in order (``documents.json``)."""
    starts: dict[str, int]
    """Each held document's first passage."""
    passages: int
    """Its passage count."""


def update(
    path: str | Path,
    again: Callable[[dict[str, Any]], W],
    *,
    paths: Sequence[str | Path] | None = None,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> tuple[BM25Index, W, Changes]:
    """Bring the documents index at ``path`` up to date with its folder; see the module.

    ``again`` walks the folder anew from the settings the index recorded
    (:meth:`searchain.documents.collection.Documents.again`: the engine reads no file itself).
    ``paths``, if given, must be those it was built from. Returns the updated index (the old
    one, untouched, when nothing changed), the walk (its skipped files, for the summary) and
    what changed.
    """
    path = Path(path)
    if not path.exists():  # the lock below is this update's own: it would read as a build
        raise NoIndex(
            "there is no index at {path} to update: build it first with {build}",
            settings=("build",),
            path=path,
        )
    with build_lock(path):
        recover_held(path)
        old = _open(path)
        check_replaceable(path)
        settings = old.manifest["documents"]
        if paths and sorted(os.path.abspath(p) for p in paths) != sorted(settings["paths"]):
            raise SettingError(
                "{path} was built from {paths}: {update} walks those again (give them, or no path)",
                settings=("update",),
                path=path,
                paths=" ".join(settings["paths"]),
            )
        documents = again(settings)
        plan, changes = _plan(documents, old, progress)
        if not changes.any:
            return BM25Index.load(path), documents, changes
        if not documents.indexed:
            raise CorpusError(
                "nothing left to index: "
                + ("; ".join(documents.problems()) or "every document is gone")
            )
        if stage:
            stage(
                f"merging: {changes} (its kernels are compiled once after an install, then cached)"
            )
        tmp = new_version(path)
        try:
            _write(tmp, old, documents, plan)
            publish(tmp, path)
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, IndexFilesError):  # the old store, checked before it is copied
                raise damaged(path, str(exc)) from None
            raise
    return BM25Index.load(path), documents, changes


def _open(path: Path) -> _Old:
    index = BM25Index.load(path)
    manifest = index.manifest
    if not isinstance(manifest.get("documents"), dict):
        raise SettingError(
            "{path} was built from a corpus file, not documents: {update} brings a documents "
            "index up to date (build it again from the corpus with {overwrite})",
            settings=("update", "overwrite"),
            path=path,
        )
    root = index.path
    if not (root / DOCUMENTS).is_file() or not (root / LENGTHS).is_file():
        raise damaged(path, f"no {DOCUMENTS} or {LENGTHS}")
    table = json.loads((root / DOCUMENTS).read_text(encoding="utf-8"))
    counts = np.array([d["passages"] for d in table], np.int64)
    firsts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if len(table) else counts
    if int(counts.sum()) != len(index):
        raise damaged(path, f"{DOCUMENTS} counts {int(counts.sum())} passages")
    starts = {d["path"]: int(first) for d, first in zip(table, firsts, strict=True)}
    return _Old(root, manifest, table, starts, len(index))


Plan = list[tuple[Indexed, int | list[Passage]]]
"""Each live document in index order: its record and where its passages come from (the old
version's first passage, or the passages just read)."""


def _plan(
    documents: Walk, old: _Old, progress: Callable[[int], None] | None
) -> tuple[Plan, Changes]:
    """What each live document brings: its old passages (where they start) or new ones."""
    held = {d["path"]: (d["sha256"], d["passages"]) for d in old.table}
    compared, changes = documents.compare(held, progress)
    plan: Plan = [
        (record, old.starts[record.path] if passages is None else passages)
        for record, passages in compared
    ]
    return plan, changes


def _write(tmp: Path, old: _Old, documents: Walk, plan: Plan) -> None:
    """The new version's files in ``tmp``: passages, matrix, lengths, table, manifest.

    Every byte of the old version is checked first, the large files too (an open checks those
    only as it reads them): what it copies or decodes, it would otherwise give fresh checksums,
    damage and all, and ``--verify`` would then pass.
    """
    from searchain.tools.retrieval.embedded.analysis.wordscan import TermIds  # numba: updates only

    manifest = old.manifest
    check_files(old.path, manifest["files"], full=True)
    vocab = TermIds(MappedVocabulary(old.path / "bm25").terms())
    remap, new_ids, n_docs = _numbering(plan, old.passages)
    tokens, lengths, lines = _encode(plan, manifest["tokenizer"], vocab)
    old_lengths = npy.load(old.path / LENGTHS)
    all_lengths = np.empty(n_docs, np.int32)
    kept = remap >= 0
    all_lengths[remap[kept]] = old_lengths[kept]
    all_lengths[new_ids] = lengths
    _write_passages(tmp, old, plan, lines)
    (tmp / "bm25").mkdir()
    _merge_postings(tmp / "bm25", old.path / "bm25", remap, new_ids, tokens, lengths, vocab,
                  all_lengths, manifest)  # fmt: skip
    write_documents(tmp, [record for record, _ in plan], all_lengths)
    fresh = {**manifest, "format": FORMAT, "passages": n_docs}
    fresh["files"] = file_table(tmp, MANIFEST)
    (tmp / MANIFEST).write_text(sealed(fresh))


def _numbering(plan: Plan, n_old: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Each old passage's new number (-1: removed), each new passage's, and how many there are."""
    remap = np.full(n_old, -1, np.int32)
    new_ids: list[np.ndarray] = []
    at = 0
    for record, source in plan:
        numbers = np.arange(at, at + record.passages, dtype=np.int32)
        if isinstance(source, int):
            remap[source : source + record.passages] = numbers
        else:
            new_ids.append(numbers)
        at += record.passages
    ids = np.concatenate(new_ids) if new_ids else np.empty(0, np.int32)
    return remap, ids, at


def _new_passages(plan: Plan) -> Iterator[Passage]:
    for _, source in plan:
        if not isinstance(source, int):
            yield from source


def _encode(
    plan: Plan, tokenizer: str, vocab: TermIds
) -> tuple[np.ndarray, np.ndarray, list[bytes]]:
    """The new passages' term ids (``vocab`` gains their new terms), lengths and stored lines.

    Encoded as a build encodes them (:func:`.workers.encoded_batches`), in this process up to
    :data:`PARALLEL_FROM` new passages: worker processes cost more to start than they save
    there (``benchmarks/updates.py`` measures updates).
    """
    from searchain.tools.retrieval.embedded.indexer.encode import TermMap
    from searchain.tools.retrieval.embedded.indexer.workers import default_workers, encoded_batches

    maps: dict[int, TermMap] = {}
    tokens, lengths, lines = [], [], []
    new = sum(r.passages for r, source in plan if not isinstance(source, int))
    workers = default_workers() if new > PARALLEL_FROM else 0
    for worker, batch in encoded_batches(_new_passages(plan), tokenizer, workers):
        tokens.append(maps.setdefault(worker, TermMap()).resolve(batch, vocab))
        lengths.append(batch.lengths)
        ends = np.cumsum(batch.line_lengths)
        lines += [batch.lines[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    if not tokens:
        return np.empty(0, np.int32), np.empty(0, np.int32), []
    return np.concatenate(tokens), np.concatenate(lengths), lines


def _write_passages(tmp: Path, old: _Old, plan: Plan, lines: Sequence[bytes]) -> None:
    """The passage store in the new order, compressed with the old store's dictionary.

    A run of kept passages keeps the old blocks it covers whole as they are, compressed (checked
    by :func:`_write` first); only the passages at its ends, which share a block with a changed
    document, and the new passages are compressed again.
    """
    store = PassageStore(old.path, old.passages)
    fresh = iter(lines)
    out = PassageStoreWriter(tmp, store.dictionary)
    try:
        for source in _runs(plan):
            if isinstance(source, range):
                out.keep(store, source.start, source.stop)
            else:
                out.add_lines([next(fresh) for _ in source])
        out.close()
    except BaseException:
        out.abort()
        raise


def _runs(plan: Plan) -> Iterator[range | list[Passage]]:
    """The plan's sources in order; adjacent kept documents make one range of old passages."""
    run: range | None = None
    for record, source in plan:
        if isinstance(source, int) and run is not None and run.stop == source:
            run = range(run.start, source + record.passages)
            continue
        if run is not None:
            yield run
            run = None
        if isinstance(source, int):
            run = range(source, source + record.passages)
        else:
            yield source
    if run is not None:
        yield run


def _merge_postings(
    directory: Path,
    old: Path,
    remap: np.ndarray,
    new_ids: np.ndarray,
    tokens: np.ndarray,
    lengths: np.ndarray,
    vocab: TermIds,
    all_lengths: np.ndarray,
    manifest: dict[str, Any],
) -> None:
    """The postings of the live passages (see the module).

    The old postings are decoded, renumbered and merged with the new ones, term by term, in one
    pass (:func:`.postings.merge_postings`), then encoded with idf, norms and block peaks
    computed again.
    """
    from searchain.tools.retrieval.embedded.postings.codec import (
        unpack_all,  # numba: builds and updates only
    )
    from searchain.tools.retrieval.embedded.postings.grouping import count_postings, merge_postings
    from searchain.tools.retrieval.embedded.postings.writer import PostingsWriter

    postings = CompactPostings.load(old)
    old_docs, old_tfs = unpack_all(
        postings.indptr, postings.blocks, postings.block_starts, postings.data, postings.words
    )
    run_terms, starts, local, tfs = count_postings(tokens, lengths, 0, len(vocab))
    indptr, docs, tf = merge_postings(
        postings.indptr,
        old_docs,
        old_tfs,
        remap,
        run_terms,
        starts,
        new_ids[local],
        tfs.astype(np.uint32),
        len(vocab),
    )
    del old_docs, old_tfs
    n_docs = len(all_lengths)
    df = np.diff(indptr)
    k1, b = manifest["k1"], manifest["b"]
    writer = PostingsWriter(directory, df, bm25_idf(df, n_docs), bm25_norm(all_lengths, k1, b))
    writer.add_all(docs, tf)
    writer.close()
    write_vocabulary(directory, vocab.utf8())
