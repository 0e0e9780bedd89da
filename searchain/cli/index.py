"""``searchain index``: build a BM25 index (embedded or Elasticsearch) from a corpus or documents.

A corpus file (JSON lines, BEIR, DPR's TSV) is indexed passage by passage as it is; files and
folders of documents (PDF, HTML, Markdown, DOCX, text) are read, split into passages and indexed
with their sources (:mod:`searchain.documents`). Exit status 3 says the index was built but some
files (or PDF pages) were skipped, each named with its reason in the summary.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from searchain import demo_corpus
from searchain.cli.common import (
    BackendOption,
    EsIndexOption,
    EsUrlOption,
    IndexOption,
    err,
    out,
)
from searchain.documents.collection import Documents
from searchain.documents.split import WORDS
from searchain.text import counted
from searchain.tools.retrieval.backends import Backend, BuildOptions
from searchain.tools.retrieval.backends import backend as retrieval_backend

if TYPE_CHECKING:
    from searchain.tools.retrieval.corpus.readers import Corpus

MAX_FILE_SIZE = "256MiB"
"""``--max-file-size``'s default (the documents' own default bound)."""
SKIPPED = 3
"""Exit status of a build that published its index but skipped some files or pages."""


def is_documents(paths: list[Path]) -> bool:
    """Whether ``paths`` name documents (folders, or files of a document type), not a corpus."""
    from searchain.documents.formats import format_of

    return any(p.is_dir() or format_of(p.name) is not None for p in paths)


def index(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="A corpus file (JSON lines {id, title, text}, BEIR corpus.jsonl or DPR TSV; "
            "plain, gzip, bz2 or zstd), or documents: PDF, HTML, Markdown, DOCX and text files, "
            "and folders of them (walked recursively).",
            show_default=False,
        ),
    ] = None,
    index: IndexOption = Path("searchain-index"),
    demo: Annotated[bool, typer.Option(help="Index the bundled demo corpus.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing index.")] = False,
    corpus_format: Annotated[
        str,
        typer.Option("--format", help="auto (from the first line), jsonl, beir or tsv."),
    ] = "auto",
    backend: BackendOption = "embedded",
    es_url: EsUrlOption = "",
    es_index: EsIndexOption = "searchain",
    k1: Annotated[
        float | None, typer.Option(help="BM25 k1 (default: 1.5 embedded, 1.2 Elasticsearch).")
    ] = None,
    b: Annotated[float, typer.Option(help="BM25 b.")] = 0.75,
    tokenizer: Annotated[
        str, typer.Option(help="Embedded: stem (stop words, stemming) or standard (as ES).")
    ] = "stem",
    memory: Annotated[
        str,
        typer.Option(
            help="Embedded: memory for the build's working buffers, e.g. 4GiB (default: a "
            "quarter of the machine's, at most 4 GiB); past it, segments go to disk."
        ),
    ] = "",
    workers: Annotated[
        int | None,
        typer.Option(
            help="Embedded: processes that tokenise the corpus while this one reads, writes and "
            "counts it; the default is one fewer than the cores, 0 tokenises here (any number "
            "builds the same index).",
            min=0,
            show_default=False,
        ),
    ] = None,
    analyzer: Annotated[str, typer.Option(help="Elasticsearch: standard or english.")] = "standard",
    shards: Annotated[int, typer.Option(help="Elasticsearch: primary shards.", min=1)] = 1,
    replicas: Annotated[
        int, typer.Option(help="Elasticsearch: copies of each shard on other nodes.", min=0)
    ] = 0,
    include: Annotated[
        list[str] | None,
        typer.Option(
            help="Documents: index only files matching this glob (repeatable), e.g. '*.md'."
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(help="Documents: leave out files matching this glob (repeatable)."),
    ] = None,
    passage_words: Annotated[
        int, typer.Option(help="Documents: words per passage (DPR's 100 suits the readers).", min=1)
    ] = WORDS,
    overlap: Annotated[int, typer.Option(help="Documents: words shared by adjacent passages.")] = 0,
    max_file_size: Annotated[
        str, typer.Option(help="Documents: files larger than this are skipped, e.g. 64MiB.")
    ] = MAX_FILE_SIZE,
    verify: Annotated[
        Path | None,
        typer.Option(help="Check every byte of the embedded index DIR against its checksums."),
    ] = None,
    update: Annotated[
        bool,
        typer.Option(
            help="Bring a documents index up to date with its folder: new and changed files "
            "read, deleted ones removed, the rest kept (with the settings it was built with)."
        ),
    ] = False,
) -> None:
    """Build a BM25 index from a corpus file or documents (title and text are both searched)."""
    from searchain.tools.retrieval.embedded.index import BM25Index
    from searchain.tools.retrieval.embedded.postings.segments import parse_size

    document_options = {
        "--include": bool(include),
        "--exclude": bool(exclude),
        "--passage-words": passage_words != WORDS,
        "--overlap": overlap != 0,
        "--max-file-size": max_file_size != MAX_FILE_SIZE,
    }
    build_options = {
        "--demo": demo,
        "--overwrite": overwrite,
        "--format": corpus_format != "auto",
        "--k1": k1 is not None,
        "--b": b != 0.75,
        "--tokenizer": tokenizer != "stem",
        "--memory": bool(memory),
        "--workers": workers is not None,
        "--analyzer": analyzer != "standard",
        "--shards": shards != 1,
        "--replicas": replicas != 0,
    }
    if verify is not None:
        given = {
            "PATH": bool(paths),
            "--update": update,
            "--backend": backend != "embedded",  # --verify checks an embedded index
            "--es-url": bool(es_url),
            "--es-index": es_index != "searchain",
            **document_options,
            **build_options,
        }
        _refuse(given, "--verify DIR checks an index alone")
        out.print(BM25Index.verify(verify))
        return
    target = retrieval_backend(backend, path=index, es_url=es_url, es_index=es_index)
    if update:
        _refuse(
            {**document_options, **build_options},
            "--update brings a documents index up to date with the settings it was built with",
        )
        _update(target, paths)
        return
    if bool(paths) == demo:
        raise ValueError("give a corpus file, documents, or --demo (one of them)")
    if paths and is_documents(paths):
        if corpus_format != "auto":
            raise ValueError("--format names a corpus file's format: documents need none")
        passages: Corpus | Documents = Documents(
            paths,
            include=include or (),
            exclude=exclude or (),
            words=passage_words,
            overlap=overlap,
            max_bytes=parse_size(max_file_size),
        )
    else:
        passages = _corpus(paths, demo, corpus_format, document_options)
    options = BuildOptions(
        k1=k1,
        b=b,
        overwrite=overwrite,
        tokenizer=tokenizer,
        memory=parse_size(memory) if memory else None,
        workers=workers,
        analyzer=analyzer,
        shards=shards,
        replicas=replicas,
    )
    started = time.perf_counter()
    with _progress_bar(passages, started) as (progress, stage):
        count = target.build(passages, options, progress=progress, stage=stage)
    where = target.where
    seconds = time.perf_counter() - started
    per_second = count / max(seconds, 1e-9)
    rate = f"{per_second:,.0f} passages/s" if per_second >= 10 else f"{per_second:.2g} passages/s"
    if not isinstance(passages, Documents):
        err.print(
            f"indexed {counted(count, 'passage')} ({passages.format}) into {where} in "
            f"{seconds:.1f} s ({rate})"
        )
        return
    err.print(passages.summary(f" into {where} in {seconds:.1f} s ({rate})"))
    if passages.skipped:
        raise typer.Exit(SKIPPED)


def _refuse(given: dict[str, bool], why: str) -> None:
    """ValueError naming the options of ``given`` that were given, and ``why`` they may not be."""
    wrong = [name for name, on in given.items() if on]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: {why}")


def _update(target: Backend, paths: list[Path] | None) -> None:
    """``--update``: the documents index brought up to date, on either backend.

    One summary line; exit status 3 if a file was skipped.
    """
    started = time.perf_counter()
    count, documents, changes = target.update(Documents.again, paths=paths, stage=err.print)
    seconds = time.perf_counter() - started
    done = "updated" if changes.any else "up to date"
    line = f"{done} {target.where}: {changes} ({counted(count, 'passage')}) in {seconds:.1f} s"
    err.print("; ".join([line, *documents.problems()]))
    if documents.skipped:
        raise typer.Exit(SKIPPED)


def _corpus(
    paths: list[Path] | None, demo: bool, corpus_format: str, document_options: dict[str, bool]
) -> Corpus:
    """The corpus file to index (or the demo's), refusing what only documents take."""
    from searchain.documents.formats import ACCEPTED
    from searchain.tools.retrieval.corpus.readers import CorpusError, corpus_name, read_corpus

    if paths and len(paths) > 1:
        raise ValueError(
            "give one corpus file, or documents (PDF, HTML, Markdown, DOCX, text files and folders)"
        )
    wrong = [name for name, given in document_options.items() if given]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: options for documents, not a corpus file")
    if demo or not paths:
        return read_corpus(demo_corpus(), corpus_format)
    try:
        return read_corpus(paths[0], corpus_format)
    except CorpusError:
        if corpus_format != "auto" or corpus_name(paths[0].name):
            raise
        raise CorpusError(
            f"{paths[0]} is neither a corpus file (JSON lines, BEIR, DPR's TSV: .jsonl, .json, "
            f".tsv, compressed or not) nor a document: {ACCEPTED}"
        ) from None


@contextlib.contextmanager
def _progress_bar(
    passages: Corpus | Documents, started: float
) -> Iterator[tuple[Callable[[int], None], Callable[[str], None]]]:
    """A bar over the bytes read, and the build's ``progress`` and ``stage`` callbacks.

    The bytes are the files' (compressed, if they are): no first pass. A documents build whose
    every file was skipped ends here in one line that names them all.
    """
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from searchain.tools.retrieval.corpus.readers import CorpusError

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[passages]:,} passages, {task.fields[rate]:,.0f}/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("indexing", total=passages.size, passages=0, rate=0.0)

        def progress(done: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=passages.position(), passages=done, rate=rate)

        def stage(line: str) -> None:
            err.print(line)
            bar.update(task, completed=passages.size, description=line.split(":")[0])

        try:
            yield progress, stage
        except CorpusError:
            if not isinstance(passages, Documents):
                raise
            found = "; ".join(passages.problems()) or "no documents found"
            raise CorpusError(f"nothing to index: {found}") from None
