"""``searchain index --convert DIR``: an index of an earlier format rewritten in this one.

Format 1 (searchain before the compact index) held bm25s's score matrix (a float32 score and an
int32 passage a posting) and its passages as JSON lines; it kept no term frequencies or passage
lengths for a corpus, so its postings cannot be re-encoded as they are. The conversion reads the
index's own passages (id, title, text, source: no corpus or document file is read again) and
builds the index anew from them, with the parameters its manifest records (k1, b, tokenizer)
and, for a documents index, its documents table and settings, so ``--update`` goes on working.
The new version replaces the old one with the build's atomic switch: the old index answers
until the new one is complete, and stays if the conversion is stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from searchain.indexed import Indexed
from searchain.tools.retrieval import npy
from searchain.tools.retrieval.bm25 import (
    CONVERTIBLE,
    READS,
    BM25Index,
    IndexLoadError,
    damaged,
)
from searchain.tools.retrieval.index_files import DOCUMENTS, MANIFEST, check_files, index_format
from searchain.tools.retrieval.passage_store import record
from searchain.types import Passage


class _OldPassages:
    """A format-1 index's passages, read from its JSON lines in order."""

    def __init__(self, root: Path, count: int) -> None:
        self.root = root
        self.count = count

    def __iter__(self) -> Iterator[Passage]:
        offsets = npy.load(self.root / "offsets.npy", mmap=True)
        if len(offsets) != self.count + 1:
            raise IndexLoadError(f"{self.root}: {len(offsets) - 1} offsets, not {self.count}")
        with (self.root / "passages.jsonl").open("rb") as lines:
            for line in lines:
                yield record(line)


class _OldDocuments(_OldPassages):
    """A format-1 documents index's passages, with the table and settings it recorded."""

    def __init__(self, root: Path, count: int, settings: dict[str, Any]) -> None:
        super().__init__(root, count)
        table = json.loads((root / DOCUMENTS).read_text(encoding="utf-8"))
        self._indexed = [Indexed(d["path"], d["sha256"], d["passages"]) for d in table]
        self._settings = settings

    @property
    def indexed(self) -> Sequence[Indexed]:
        return self._indexed

    def settings(self) -> dict[str, Any]:
        return self._settings


def convert(
    path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> BM25Index:
    """Rewrite the index at ``path`` in this release's format; see the module."""
    path = Path(path)
    root = path.resolve()
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        raise IndexLoadError(
            f"{path} is not a searchain index (no readable {MANIFEST}): nothing to convert"
        ) from None
    version = index_format(manifest)
    if version in READS:
        raise ValueError(
            f"{path} is in index format {version}, which this searchain reads: nothing to convert"
        )
    if version not in CONVERTIBLE:
        raise IndexLoadError(
            "{path} has index format {version}, which this searchain cannot convert: "
            "build it again with {build}",
            settings=("build",),
            path=path,
            version=version,
        )
    try:  # every byte as its build wrote it, before a passage is read
        check_files(root, manifest["files"], full=True)
    except (KeyError, ValueError) as exc:
        raise damaged(path, str(exc)) from None
    count = manifest["passages"]
    settings = manifest.get("documents")
    passages = (
        _OldDocuments(root, count, settings)
        if isinstance(settings, dict)
        else _OldPassages(root, count)
    )
    return BM25Index.build(
        passages,
        path,
        k1=manifest["k1"],
        b=manifest["b"],
        tokenizer=manifest["tokenizer"],
        overwrite=True,
        progress=progress,
        stage=stage,
    )
