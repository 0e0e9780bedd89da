"""The embedded BM25 backend: a compact index on disk, no server.

An index directory holds the postings, compressed in blocks (:mod:`.compact`; memory-mapped on
load), the mapped vocabulary, the passages compressed in small blocks (:mod:`.passage_store`: a
passage is read only when it is returned), and a small manifest. It is built in a temporary
sibling directory and renamed into place only when complete, so an interrupted build never
leaves a half-written index behind.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from searchain.errors import Worded
from searchain.text import counted
from searchain.tools.retrieval.embedded.analysis.tokenizer import Tokenizer
from searchain.tools.retrieval.embedded.directory.checked import (
    LAZY,
    CheckedFile,
    ChecksumError,
    check_seal,
)
from searchain.tools.retrieval.embedded.directory.files import (
    MANIFEST,
    IndexFilesError,
    building,
    check_files,
    index_format,
    recover,
)
from searchain.tools.retrieval.embedded.postings.compact import PAD, CompactPostings
from searchain.tools.retrieval.embedded.search import first as first_search
from searchain.tools.retrieval.embedded.store.passages import (
    STORE,
    PassageStore,
    record,
)
from searchain.tools.retrieval.embedded.termdict.vocabulary import MappedVocabulary
from searchain.types import Passage

if TYPE_CHECKING:
    from searchain.tools.retrieval.embedded.search.topk import TopK

FORMAT = 3
"""The layout this release writes: compact postings, passages in compressed blocks of up to 16."""
COLD_POSTINGS = 1 << 24
"""Postings the NumPy scorer may read for a query while the kernel loads: past about this many,
reading them takes as long as the kernel takes to load, so the query waits for it."""


class IndexLoadError(Worded, ValueError):
    """A directory that is not a (complete) searchain index."""


class IndexTokenizerWarning(UserWarning):
    """An index opened with another stemmer release than built it: some stems differ."""


def damaged(path: str | Path, reason: str) -> IndexLoadError:
    """The one line for an index whose files do not hold together."""
    return IndexLoadError(
        "{path} is a damaged searchain index ({reason}): {verify} checks all of it; "
        "rebuild it with {build}",
        settings=("verify", "build"),
        path=path,
        reason=reason,
    )


class BM25Index:
    """A loaded index: ``search(query, k)`` returns passages, best first (a ``Retriever``)."""

    def __init__(
        self,
        path: Path,
        postings: CompactPostings,
        vocab: MappedVocabulary,
        store: PassageStore,
        manifest: dict[str, Any],
        *,
        named: Path | None = None,
        checked: CheckedFile | None = None,
    ) -> None:
        self.path = path
        self.named = named or path
        """The path it was opened by (a link to :attr:`path`, its version), as errors name it."""
        self.manifest = manifest
        self._checked = checked
        self.postings = postings
        """The postings, mapped from disk (what :mod:`.first_search` and checks read)."""
        self.vocab = vocab
        """Term -> term id, mapped from disk."""
        self._store = store
        self._tokenize = Tokenizer(manifest["tokenizer"])
        self._kernel: TopK | None = None
        self._kernel_lock = threading.Lock()
        self._warming: threading.Thread | None = None
        self._warming_lock = threading.Lock()

    def __len__(self) -> int:
        return self._store.count

    def passage(self, i: int, score: float = 0.0) -> Passage:
        """The ``i``-th passage of the corpus (read from disk, not kept in memory)."""
        return self._store.passage(i, score)

    def terms(self, query: str) -> list[int]:
        """The term ids of ``query``'s words that the index holds, in order."""
        return self.vocab.columns(self._tokenize(query))

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """Up to ``k`` passages that share at least one term with ``query``, best first."""
        return self.search_batch([query], k)[0]

    def search_batch(self, queries: Sequence[str], k: int = 1) -> list[list[Passage]]:
        """:meth:`search` for many queries at once, scored in parallel on every core.

        The bytes of the postings the queries read, and of the passages returned, are checked
        against the manifest first (:mod:`.checked`): a damaged index is refused in one line.
        """
        k = max(1, min(k, len(self)))
        terms = [self.terms(query) for query in queries]
        try:
            self._check_postings(terms)
            if len(queries) == 1:  # one query: no thread pool to start
                rows = [self._search_one(terms[0], k)]
            else:
                rows = list(zip(*self._top_k().search_batch(terms, k), strict=True))
            found = [
                [self.passage(int(d), float(s)) for d, s in zip(ds, ss, strict=True) if d >= 0]
                for ds, ss in rows
            ]
        except ChecksumError as exc:
            raise damaged(self.named, str(exc)) from None
        # The kernel starts loading once this answer is whole: its imports hold the GIL, which
        # the many short NumPy and passage-reading steps of a first search would each wait for.
        self.warm()
        return found

    def _check_postings(self, terms: Sequence[list[int]]) -> None:
        """Check the bytes of every block of ``terms``' lists (each chunk once an open)."""
        if self._checked is None:
            return
        wanted = np.unique(np.fromiter(itertools.chain.from_iterable(terms), np.int64))
        p = self.postings
        starts = np.asarray(p.block_starts)
        lo, hi = starts[p.blocks[wanted]], starts[p.blocks[wanted + 1]] + PAD
        for start, end in zip(lo.tolist(), hi.tolist(), strict=True):
            self._checked.ensure(start, end)

    def _search_one(self, terms: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
        """One query's (documents, scores): by the kernel, or by NumPy while it loads."""
        if self._kernel is None:
            found = first_search.top_k(self.postings, sorted(set(terms)), k, COLD_POSTINGS)
            if found is not None:
                return found
        return self._top_k().search(terms, k)

    def warm(self) -> threading.Thread:
        """Load the search kernel in a background thread (once); a search meanwhile needs none.

        Opening imports no numba, and loading it with the compiled kernel takes longer than a
        first search. The
        first search starts this itself once it has answered, in NumPy (:mod:`.first_search`);
        later searches are answered in NumPy too until the kernel is ready. A search that would
        read more than :data:`COLD_POSTINGS` postings waits for the kernel. A caller with other
        work before its first search (``searchain ask``: the LLM plans the chain first) calls it
        to overlap the two.
        Returns the thread, already started.
        """
        with self._warming_lock:
            if self._warming is None:
                self._warming = threading.Thread(
                    target=self._load_kernel, name="searchain-bm25-warm", daemon=True
                )
                self._warming.start()
            return self._warming

    def _load_kernel(self) -> None:
        # A failure here is raised again by the next search that needs the kernel (one too long
        # for NumPy, or a batch), where its caller handles it.
        with contextlib.suppress(Exception):
            self._top_k()

    def _top_k(self) -> TopK:
        """The search kernel over this index's matrix, loaded once (numba: waits for it)."""
        with self._kernel_lock:
            if self._kernel is None:
                from searchain.tools.retrieval.embedded.search.topk import TopK

                kernel = TopK(self.postings)
                kernel.search([], 1)  # the compiled kernel itself, read from numba's cache
                self._kernel = kernel
            return self._kernel

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True) -> BM25Index:
        """Open the index at ``path``; ``mmap`` keeps the score matrix and passages on disk."""
        path = Path(path)
        if not path.exists():
            busy = building(path)
            if busy is not None:  # its first build runs: not built yet, and nothing touched
                raise IndexLoadError(f"{path} is not built yet: {busy}")
            if os.access(path.parent, os.W_OK):
                recover(path)  # a replacement a crash interrupted: restore the index first
        for _ in range(20):  # bounded; a reader preempted on a busy machine sees many versions go
            root = path.resolve()  # every file from one version, even if the link switches now
            try:
                return cls._open_version(path, root, mmap=mmap)
            except (IndexLoadError, OSError):
                if path.resolve() == root:
                    raise
                # The version was replaced and swept while being opened: open the new one.
        return cls._open_version(path, path.resolve(), mmap=mmap)

    @classmethod
    def _open_version(cls, path: Path, root: Path, *, mmap: bool) -> BM25Index:
        """Open the version directory ``root`` that the index ``path`` pointed to."""
        manifest_path = root / MANIFEST
        if not manifest_path.is_file():
            raise IndexLoadError(
                "{path} is not a searchain index (no {manifest}): build one with {build}",
                settings=("build",),
                path=path,
                manifest=MANIFEST,
            )
        try:
            manifest = json.loads(manifest_path.read_text())
            version = index_format(manifest)
            if version != FORMAT:  # formats 1 and 2 were pre-releases': the floor is 3
                raise IndexLoadError(
                    "{path} has index format {version}, this searchain reads format {format}: "
                    "rebuild it with {build}",
                    settings=("build",),
                    path=path,
                    version=version,
                    format=FORMAT,
                )
            check_seal(manifest)  # after its format: another release may seal it otherwise
            files = manifest.get("files", {})
            check_files(root, files, full=False)
            checked = {
                name: CheckedFile(root / name, name, entry[1], entry[2] if entry[2:] else None)
                for name, entry in files.items()
                if name in LAZY
            }
            postings = CompactPostings.load(root / "bm25", mmap=mmap)
            vocab = MappedVocabulary(root / "bm25")
            store = PassageStore(root, manifest["passages"], checked.get(STORE))
        except IndexLoadError:
            raise
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise damaged(path, str(exc)) from None
        problem = store.check() or postings.check(len(vocab), store.count)
        if problem:
            raise damaged(path, problem)
        index = cls(
            root,
            postings,
            vocab,
            store,
            manifest,
            named=path,
            checked=checked.get("bm25/postings.bin"),
        )
        mismatch = index._tokenize.check_built_with(manifest.get("stemmer"))
        if mismatch:  # named by the path the caller gave, not its version directory
            warnings.warn(f"index {path}: {mismatch}", IndexTokenizerWarning, stacklevel=3)
        return index

    @classmethod
    def verify(cls, path: str | Path) -> str:
        """Check every byte of the index at ``path``; a one-line summary, or IndexLoadError.

        Opening checks sizes and the small files; this also checksums the passages and the
        postings, decodes every block of postings (passages ascending and in range, each block
        ending where its table says), and reads every passage back.
        """
        index = cls.load(path)
        files = index.manifest.get("files")
        if not files:
            raise IndexLoadError(f"{path} was built before indexes carried checksums: rebuild it")
        try:
            check_files(index.path, files, full=True)
        except IndexFilesError as exc:
            raise damaged(path, str(exc)) from None
        from searchain.tools.retrieval.embedded.postings.codec import (
            check_blocks,  # numba: checks only
        )

        p = index.postings
        bad = check_blocks(
            p.indptr, p.blocks, p.block_starts, p.block_last, p.data, p.words, len(index)
        )
        if bad >= 0:
            raise damaged(path, f"block {bad} of the postings")
        for i, line in enumerate(index._store.lines()):
            try:
                record(line)
            except (ValueError, KeyError, TypeError) as exc:
                raise damaged(path, f"passage {i + 1}: {exc}") from None
        passages = counted(len(index), "passage")
        return f"{path}: {passages}, {len(files)} files, every checksum matches"
