"""``searchain index``: build a BM25 index (embedded or Elasticsearch) from a JSON-lines corpus."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from searchain import demo_corpus
from searchain.cli.common import (
    BackendOption,
    EsIndexOption,
    EsUrlOption,
    IndexOption,
    check_backend,
    err,
    out,
)


def index(
    corpus: Annotated[
        Path | None, typer.Argument(help="JSON lines {id, title, text}.", show_default=False)
    ] = None,
    index: IndexOption = Path("searchain-index"),
    demo: Annotated[bool, typer.Option(help="Index the bundled demo corpus.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing index.")] = False,
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
    analyzer: Annotated[str, typer.Option(help="Elasticsearch: standard or english.")] = "standard",
    verify: Annotated[
        Path | None,
        typer.Option(help="Check every byte of the embedded index DIR against its checksums."),
    ] = None,
) -> None:
    """Build a BM25 index from a JSON-lines corpus (title and text are both searched)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from searchain.tools.retrieval.bm25 import BM25Index
    from searchain.tools.retrieval.corpus import read_corpus

    if verify is not None:
        if corpus is not None or demo:
            raise ValueError("--verify DIR checks an index; give no corpus with it")
        out.print(BM25Index.verify(verify))
        return
    check_backend(backend)
    if (corpus is None) == (not demo):
        raise ValueError("give a CORPUS file or --demo (not both)")
    source = demo_corpus() if demo else corpus
    if source is not None and source.is_dir():
        raise ValueError(f"corpus {source} is a directory: pass a JSON-lines file")
    if source is None or not source.is_file():
        raise ValueError(f"corpus {source} does not exist")
    with source.open(encoding="utf-8-sig", errors="replace") as lines:  # counted for the bar
        total = sum(1 for line in lines if line.strip())
    started = time.perf_counter()
    columns = ("indexing", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("indexing", total=total)

        def progress(done: int) -> None:
            bar.update(task, completed=done)

        if backend == "embedded":
            built = BM25Index.build(
                read_corpus(source),
                index,
                k1=1.5 if k1 is None else k1,
                b=b,
                tokenizer=tokenizer,
                overwrite=overwrite,
                progress=progress,
            )
            count, where = len(built), str(index)
        else:
            from searchain.tools.retrieval.elastic import ElasticRetriever, ElasticSettings

            retriever = ElasticRetriever(ElasticSettings(url=es_url, index=es_index))
            count = retriever.build(
                read_corpus(source),
                k1=1.2 if k1 is None else k1,
                b=b,
                analyzer=analyzer,
                overwrite=overwrite,
                progress=progress,
            )
            where = f"Elasticsearch index {es_index} at {retriever.url}"
    seconds = time.perf_counter() - started
    err.print(f"indexed {count:,} passages into {where} in {seconds:.1f} s")
