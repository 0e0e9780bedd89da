"""``searchain index``: build a BM25 index (embedded or Elasticsearch) from a corpus file."""

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
from searchain.text import counted


def index(
    corpus: Annotated[
        Path | None,
        typer.Argument(
            metavar="CORPUS",
            help="Corpus file: JSON lines {id, title, text}, BEIR corpus.jsonl or DPR TSV; "
            "plain, gzip, bz2 or zstd.",
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
        int,
        typer.Option(
            help="Embedded: processes that tokenise the corpus; 0, the default, is one per core "
            "(any number builds the same index).",
            min=0,
            show_default=False,
        ),
    ] = 0,
    analyzer: Annotated[str, typer.Option(help="Elasticsearch: standard or english.")] = "standard",
    shards: Annotated[int, typer.Option(help="Elasticsearch: primary shards.", min=1)] = 1,
    replicas: Annotated[
        int, typer.Option(help="Elasticsearch: copies of each shard on other nodes.", min=0)
    ] = 0,
    verify: Annotated[
        Path | None,
        typer.Option(help="Check every byte of the embedded index DIR against its checksums."),
    ] = None,
) -> None:
    """Build a BM25 index from a corpus file (title and text are both searched)."""
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from searchain.tools.retrieval.bm25 import BM25Index
    from searchain.tools.retrieval.corpus import read_corpus
    from searchain.tools.retrieval.segments import parse_size

    if verify is not None:
        if corpus is not None or demo:
            raise ValueError("--verify DIR checks an index; give no corpus with it")
        out.print(BM25Index.verify(verify))
        return
    check_backend(backend)
    if (corpus is None) == (not demo):
        raise ValueError("give a CORPUS file or --demo (not both)")
    budget = parse_size(memory) if memory else None
    passages = read_corpus(demo_corpus() if demo else corpus, corpus_format)  # type: ignore[arg-type]
    started = time.perf_counter()
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
        # The bar follows the bytes of the file read (compressed, if it is): no first pass.
        task = bar.add_task("indexing", total=passages.size, passages=0, rate=0.0)

        def progress(done: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=passages.position(), passages=done, rate=rate)

        def stage(line: str) -> None:
            err.print(line)
            bar.update(task, completed=passages.size, description=line.split(":")[0])

        if backend == "embedded":
            built = BM25Index.build(
                passages,
                index,
                k1=1.5 if k1 is None else k1,
                b=b,
                tokenizer=tokenizer,
                overwrite=overwrite,
                memory=budget,
                workers=workers or None,
                progress=progress,
                stage=stage,
            )
            count, where = len(built), str(index)
        else:
            from searchain.tools.retrieval.elastic import ElasticRetriever, ElasticSettings

            retriever = ElasticRetriever(ElasticSettings(url=es_url, index=es_index))
            count = retriever.build(
                passages,
                k1=1.2 if k1 is None else k1,
                b=b,
                analyzer=analyzer,
                overwrite=overwrite,
                shards=shards,
                replicas=replicas,
                progress=progress,
            )
            where = f"Elasticsearch index {es_index} at {retriever.url}"
    seconds = time.perf_counter() - started
    err.print(
        f"indexed {counted(count, 'passage')} ({passages.format}) into {where} in {seconds:.1f} s "
        f"({count / max(seconds, 1e-9):,.0f} passages/s)"
    )
