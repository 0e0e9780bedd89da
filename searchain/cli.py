"""The ``searchain`` command: build an index, ask a question."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Search-in-the-Chain: multi-hop answers checked step by step against retrieval.",
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)
F = TypeVar("F", bound=Callable[..., Any])

SOURCE_STYLE = {"llm": "cyan", "corrected": "yellow", "completed": "green", None: "dim"}


def friendly_errors(command: F) -> F:
    """Turn expected failures (bad input, missing files or extras) into one line and exit 1."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (ValueError, OSError, ImportError) as exc:
            err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("[red]interrupted[/red]")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def demo_corpus() -> Path:
    """The small demo corpus shipped inside the package (see its DEMO_CORPUS_NOTICE.md)."""
    return Path(__file__).parent / "data" / "demo_corpus.jsonl"


IndexOption = Annotated[Path, typer.Option("--index", help="Embedded index directory.")]
BackendOption = Annotated[str, typer.Option(help="embedded (bm25s, no server) or elasticsearch.")]
EsUrlOption = Annotated[
    str, typer.Option("--es-url", help="Elasticsearch URL (default: ES_URL, then localhost:9200).")
]
EsIndexOption = Annotated[str, typer.Option("--es-index", help="Elasticsearch index name.")]
BACKENDS = ("embedded", "elasticsearch")


def check_backend(backend: str) -> None:
    """Reject an unknown --backend in one line."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: use embedded or elasticsearch")


@app.command()
@friendly_errors
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
) -> None:
    """Build a BM25 index from a JSON-lines corpus (title and text are both searched)."""
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from searchain.tools.bm25 import BM25Index, read_corpus

    check_backend(backend)
    if (corpus is None) == (not demo):
        raise ValueError("give a CORPUS file or --demo (not both)")
    source = demo_corpus() if demo else corpus
    if source is None or not source.is_file():
        raise ValueError(f"corpus {source} does not exist")
    with source.open(encoding="utf-8") as lines:
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
            from searchain.tools.elastic import ElasticRetriever, ElasticSettings

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


@app.command()
@friendly_errors
def ask(
    question: Annotated[str, typer.Argument(help="The question (or claim, for factcheck).")],
    index: IndexOption = Path("searchain-index"),
    backend: BackendOption = "embedded",
    es_url: EsUrlOption = "",
    es_index: EsIndexOption = "searchain",
    llm: Annotated[
        str, typer.Option(help="auto, local, or provider:model (e.g. openai:gpt-4o-mini).")
    ] = "auto",
    reader: Annotated[
        str, typer.Option(help="dpr, extractive, llm, dpr:DIR, extractive:DIR.")
    ] = "dpr",
    task: Annotated[str, typer.Option(help="qa, yesno, factcheck, slot, longform, no_ir.")] = "qa",
    r_max: Annotated[int, typer.Option(help="Maximum rounds.")] = 5,
    theta: Annotated[
        float | None, typer.Option(help="Reader confidence threshold (default: the reader's).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Answer QUESTION with SearChain and show the cited passages and the reasoning tree."""
    from searchain.context import Context
    from searchain.graph.searchain import build_graph
    from searchain.output import result_to_json
    from searchain.tools.llm import resolve_llm
    from searchain.tools.resolve import resolve_reader, resolve_retriever

    check_backend(backend)
    if not question.strip():
        raise ValueError("the question is empty: pass a non-blank question")
    context = Context(
        llm=llm,
        retriever="bm25" if backend == "embedded" else "elasticsearch",
        index=str(index),
        es_url=es_url,
        es_index=es_index,
        reader=reader,
        task=task,
        r_max=r_max,
        theta=theta,
    )
    # Fail before the first LLM call if any component cannot be had.
    resolve_llm(context.llm)
    retriever = resolve_retriever(
        context.retriever, context.index, es_url=context.es_url, es_index=context.es_index
    )
    if hasattr(retriever, "count"):
        retriever.count()  # Elasticsearch: reachable, and the index exists
    loaded = resolve_reader(context.reader, context.llm)
    if hasattr(loaded, "load"):
        loaded.load()
    result: dict[str, Any] = {}
    for mode, chunk in build_graph().stream(
        {"question": question, "task": task}, context=context, stream_mode=["custom", "values"]
    ):
        if mode == "custom":
            show_progress(chunk)
        else:
            result = chunk
    if as_json:
        sys.stdout.write(json.dumps(result_to_json(result), ensure_ascii=False) + "\n")
    else:
        show_result(result)


def show_progress(event: dict[str, Any]) -> None:
    """One stderr line per progress event of a run."""
    kind = event["event"]
    if kind == "round_started":
        err.print(f"[bold]round {event['round']}[/bold]: the LLM writes a chain of queries…")
    elif kind == "chain_generated":
        err.print(f"  chain of {event['nodes']} queries ({event['new']} new)")
    elif kind == "node_retrieved":
        found = event["passage"] or "nothing found"
        conf = event.get("confidence")
        reading = (
            f" → reader {event.get('reader_answer')!r} ({conf:.2f})" if conf is not None else ""
        )
        err.print(
            f"  {escape(event['query'])} [dim]\\[{escape(str(found))}]{escape(reading)}[/dim]"
        )
    elif kind == "node_corrected":
        err.print(f"  [yellow]corrected[/yellow] {event['llm']!r} → {event['ir']!r}")
    elif kind == "node_completed":
        err.print(f"  [green]completed[/green] → {event['ir']!r}")
    elif kind == "trace_done":
        err.print(f"  traced, {event['references']} references")


def show_result(result: dict[str, Any]) -> None:
    """The answer, the cited content, the references and the Tree-of-Reasoning."""
    out.print(f"[bold]Answer:[/bold] {escape(result.get('answer') or '(none)')}\n")
    out.print(escape(result.get("final_content", "")) + "\n")
    for ref in result.get("references", []):
        out.print(f"[bold][{ref.n}][/bold] {escape(ref.title)} [dim]({escape(ref.id)})[/dim]")
        out.print(f"    {escape(ref.text)}")
    if result.get("unresolved_citations"):
        out.print(f"[dim]removed citations to no step: {result['unresolved_citations']}[/dim]")
    tree = Tree(
        f"[bold]Tree-of-Reasoning[/bold] ({result.get('rounds', 0)} rounds, "
        f"{result.get('stop_reason', '')})"
    )
    branches: dict[int | None, Tree] = {None: tree}
    for node in result.get("nodes", []):
        parent = branches.get(node.parent, tree)
        label = node.source or "not reached"
        conf = f", conf {node.confidence:.2f}" if node.confidence is not None else ""
        answer = node.answer or node.llm_answer or "?"
        branches[node.id] = parent.add(
            f"[{SOURCE_STYLE[node.source]}]{escape(node.query)} → {escape(answer)} "
            f"({label}{conf})[/]"
        )
    out.print(tree)


def main() -> None:
    """Entry point of the ``searchain`` script."""
    app()
