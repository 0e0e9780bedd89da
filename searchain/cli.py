"""The ``searchain`` command: build an index, ask a question."""

from __future__ import annotations

import json
import os
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


DbOption = Annotated[Path, typer.Option("--db", help="SQLite file of threads and checkpoints.")]


@app.command()
@friendly_errors
def ask(
    question: Annotated[str, typer.Argument(help="The question (or claim, for factcheck).")],
    index: IndexOption = Path("searchain-index"),
    backend: BackendOption = "embedded",
    es_url: EsUrlOption = "",
    es_index: EsIndexOption = "searchain",
    llm: Annotated[
        str,
        typer.Option(help="auto, local, provider:model (e.g. openai:gpt-4o-mini), scripted:FILE."),
    ] = "auto",
    reader: Annotated[
        str, typer.Option(help="dpr, extractive, llm, dpr:DIR, extractive:DIR.")
    ] = "dpr",
    task: Annotated[str, typer.Option(help="qa, yesno, factcheck, slot, longform, no_ir.")] = "qa",
    r_max: Annotated[int, typer.Option(help="Maximum rounds.")] = 5,
    theta: Annotated[
        float | None, typer.Option(help="Reader confidence threshold (default: the reader's).")
    ] = None,
    approve_corrections: Annotated[
        bool, typer.Option(help="Pause for a human before each IR correction.")
    ] = False,
    db: DbOption = Path(".searchain/threads.sqlite"),
    thread: Annotated[
        str | None, typer.Option(help="Continue this thread (follow-up question).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Answer QUESTION with SearChain and show the cited passages and the reasoning tree."""
    import uuid

    check_backend(backend)
    if not question.strip():
        raise ValueError("the question is empty: pass a non-blank question")
    options = {
        "backend": backend,
        "index": str(index.resolve()),
        "es_url": es_url,
        "es_index": es_index,
        "llm": llm,
        "reader": reader,
        "task": task,
        "r_max": r_max,
        "theta": theta,
        "approve_corrections": approve_corrections,
    }
    context = context_from(options)
    store, graph = open_threads(db)
    config = {"configurable": {"thread_id": thread or uuid.uuid4().hex[:12]}}
    if thread is not None and store.exists(thread):
        store.options(thread)  # a thread of this state version, or one clear error
        if unfinished(graph.get_state(config)):
            raise ValueError(
                f"thread {thread!r} has an unfinished run: `searchain resume {thread}` first"
            )
    preload(context)
    store.record(config["configurable"]["thread_id"], options, question)
    run(graph, {"question": question, "task": task}, config, context, as_json)


@app.command()
@friendly_errors
def resume(
    thread: Annotated[str, typer.Argument(help="The thread id `searchain ask` printed.")],
    db: DbOption = Path(".searchain/threads.sqlite"),
    approve: Annotated[bool, typer.Option(help="Approve the pending correction.")] = False,
    reject: Annotated[bool, typer.Option(help="Reject the pending correction.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Continue an interrupted run (Ctrl-C, a crash, or a correction waiting for approval)."""
    from langgraph.types import Command

    store, graph = open_threads(db)
    context = context_from(store.options(thread))
    config = {"configurable": {"thread_id": thread}}
    state = graph.get_state(config)
    if not unfinished(state):
        raise ValueError(
            f"thread {thread!r} already finished: ask a follow-up with "
            f"`searchain ask QUESTION --thread {thread}`"
        )
    payload: Any = None
    if state.interrupts:
        if approve == reject:
            raise ValueError("a correction is waiting: pass --approve or --reject")
        payload = Command(resume="approve" if approve else "reject")
    elif approve or reject:
        raise ValueError(f"thread {thread!r} has no correction waiting for approval")
    preload(context)
    run(graph, payload, config, context, as_json)


@app.command()
@friendly_errors
def threads(db: DbOption = Path(".searchain/threads.sqlite")) -> None:
    """List the threads in --db with their status and latest question."""
    import datetime

    store, graph = open_threads(db)
    for thread_id, created, question in store.threads():
        state = graph.get_state({"configurable": {"thread_id": thread_id}})
        if state.interrupts:
            status = "waiting for approval"
        elif unfinished(state):
            status = "interrupted"
        else:
            status = "finished" if state.values else "not started"
        when = datetime.datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M")
        out.print(f"{thread_id}  {when}  {status:<20}  {escape(question)}")


@app.command("eval")
@friendly_errors
def evaluate(
    dataset: Annotated[
        str, typer.Option(help="musique, hotpotqa, 2wikimultihopqa, strategyqa or fever.")
    ],
    method: Annotated[
        str,
        typer.Option(
            help="direct, cot, oner, ircot, searchain, searchain-no-ir, searchain-no-verify, "
            "searchain-no-complete."
        ),
    ],
    out_file: Annotated[Path, typer.Option("--out", help="Results file (JSON lines; resumed).")],
    split: Annotated[str, typer.Option(help="tune (first 100) or report (last 100).")] = "tune",
    llm: Annotated[str, typer.Option(help="An LLM spec (as for ask), or simulated.")] = "auto",
    reader: Annotated[
        str,
        typer.Option(help="SearChain methods: a reader spec (as for ask; llm:local), simulated."),
    ] = "dpr",
    backend: BackendOption = "embedded",
    index: Annotated[
        Path,
        typer.Option("--index", help="Embedded index (built from the pooled corpus if absent)."),
    ] = Path(".searchain/pooled-index"),
    es_url: EsUrlOption = "",
    es_index: Annotated[
        str, typer.Option("--es-index", help="Elasticsearch index (built if absent).")
    ] = "searchain-eval",
    limit: Annotated[int | None, typer.Option(help="Only the split's first N questions.")] = None,
    concurrency: Annotated[int, typer.Option(help="Questions answered at once.")] = 1,
    p: Annotated[
        float | None, typer.Option("--p", help="Simulated LLM: chance of a wrong hop answer.")
    ] = None,
    u: Annotated[
        float | None, typer.Option("--u", help="Simulated LLM: chance of an unsolved hop.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Simulated LLM: seed of its draws.")] = 0,
    data: Annotated[
        Path | None,
        typer.Option(help="Data directory (default: SEARCHAIN_DATA_DIR, ../shared/data)."),
    ] = None,
) -> None:
    """Run METHOD over a data set split, one JSON line per question; rerun to resume."""
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from searchain.eval.datasets import data_dir
    from searchain.eval.report import summarize
    from searchain.eval.runner import SIMULATED, EvalSpec, done_ids, read_results, run_records
    from searchain.eval.setup import check, eval_context, eval_records
    from searchain.methods import get_method

    simulated_llm = llm == SIMULATED
    reads = get_method(method).graph == "searchain"  # IRCoT's family answers with the LLM
    spec = EvalSpec(
        dataset=dataset,
        split=split,
        method=method,
        llm=llm,
        reader=reader if reads else "none",
        backend=backend,
        p=(p or 0.0) if simulated_llm else p,
        u=(u or 0.0) if simulated_llm else u,
        seed=seed if simulated_llm else None,
    )
    check(spec)
    done_ids(out_file, spec)  # a results file of another run fails before anything loads
    root = data_dir(data)
    records = eval_records(root, spec, limit)
    context = eval_context(root, spec, index=index, es_url=es_url, es_index=es_index)
    tag = "[bold red]SIMULATED[/bold red] " if spec.simulated else ""
    err.print(f"{tag}{method} on {dataset} {split} ({len(records)} questions) → {out_file}")
    columns = (method, BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(method, total=len(records))
        ran = asyncio.run(
            run_records(
                spec,
                records,
                context,
                out_file,
                concurrency=concurrency,
                on_result=lambda _: bar.advance(task),
                on_start=lambda skipped: bar.update(task, completed=skipped),
            )
        )
    wanted = {r.id for r in records}
    results = [r for _, r in read_results(out_file) if r["id"] in wanted]
    s = summarize(results)
    figures = ", ".join(
        f"{name} {s[name]:.3f}"
        for name in ("cover_em", "em", "f1", "accuracy", "paragraph_recall")
        if s.get(name) is not None
    )
    err.print(
        f"{tag}{ran} answered now, {len(results)} in all: {figures}; "
        f"{s['rounds']:.2f} rounds, {s['seconds']:.2f} s per question"
    )


@app.command()
@friendly_errors
def report(
    results: Annotated[list[Path], typer.Argument(help="Results files of `searchain eval`.")],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Directory for report.md and PNGs.")
    ] = Path("report"),
) -> None:
    """Compare evaluation runs: a markdown table and PNG plots in --out."""
    from searchain.eval.report import write_report

    for path in write_report(results, out_dir):
        out.print(str(path))


def unfinished(state: Any) -> bool:
    """Whether a thread's last run stopped before its end (steps to run or writes to apply).

    ``state.next`` alone is not enough: a step that finished just before a crash has its writes
    saved as pending and no successor yet, so ``next`` is empty while the run is not done.
    """
    return bool(state.next or state.tasks)


def context_from(options: dict[str, Any]) -> Any:
    """The run's Context from the options a thread was started with."""
    from searchain.context import Context

    return Context(
        llm=options["llm"],
        retriever="bm25" if options["backend"] == "embedded" else "elasticsearch",
        index=options["index"],
        es_url=options["es_url"],
        es_index=options["es_index"],
        reader=options["reader"],
        task=options["task"],
        r_max=options["r_max"],
        theta=options["theta"],
        approve_corrections=options["approve_corrections"],
    )


def open_threads(db: Path) -> tuple[Any, Any]:
    """The thread store at ``db`` and the graph checkpointing into it."""
    from searchain.graph.searchain import build_graph
    from searchain.threads import ThreadStore

    store = ThreadStore(db)
    return store, build_graph(checkpointer=store.checkpointer())


def preload(context: Any) -> None:
    """Build every component now, so a missing one fails before the first LLM call."""
    from searchain.tools.llm import resolve_llm
    from searchain.tools.resolve import resolve_reader, resolve_retriever

    resolve_llm(context.llm)
    retriever = resolve_retriever(
        context.retriever, context.index, es_url=context.es_url, es_index=context.es_index
    )
    if hasattr(retriever, "count"):
        retriever.count()  # Elasticsearch: reachable, and the index exists
    loaded = resolve_reader(context.reader, context.llm)
    if hasattr(loaded, "load"):
        loaded.load()


def run(graph: Any, payload: Any, config: dict[str, Any], context: Any, as_json: bool) -> None:
    """Stream one run, checkpointing every step; show the result or what it waits for."""
    from searchain.output import result_to_json

    thread = config["configurable"]["thread_id"]
    err.print(f"[dim]thread {thread}[/dim]")
    try:
        for mode, chunk in graph.stream(
            payload, config, context=context, stream_mode=["custom"], durability="sync"
        ):
            if mode == "custom":
                show_progress(chunk)
    except KeyboardInterrupt:
        # The graph runs its steps in worker threads that would carry on to the end; stop here,
        # as a crash would: every finished step is already checkpointed (durability="sync").
        err.print(f"interrupted: continue with `searchain resume {thread}`")
        sys.stderr.flush()
        os._exit(130)
    state = graph.get_state(config)
    if state.interrupts:
        pending = state.interrupts[0].value
        if as_json:
            sys.stdout.write(json.dumps({"thread": thread, "waiting_for": pending}) + "\n")
            return
        err.print(
            f"[yellow]correction waiting for approval[/yellow] on {escape(pending['query'])}: "
            f"LLM {pending['llm_answer']!r} → reader {pending['reader_answer']!r} "
            f"(confidence {pending['confidence']:.2f}, passage {pending['passage']['id']})\n"
            f"approve or reject with `searchain resume {thread} --approve` / `--reject`"
        )
        return
    result = state.values
    if as_json:
        sys.stdout.write(
            json.dumps({"thread": thread, **result_to_json(result)}, ensure_ascii=False) + "\n"
        )
    else:
        show_result(result)


def show_progress(event: dict[str, Any]) -> None:
    """One stderr line per progress event of a run."""
    kind = event["event"]
    if kind == "round_started":
        err.print(f"[bold]round {event['round']}[/bold]: the LLM writes a chain of queries…")
    elif kind == "chain_generated":
        cut = f", {event['dropped']} beyond max_chain_nodes cut" if event.get("dropped") else ""
        err.print(f"  chain of {event['nodes']} queries ({event['new']} new{cut})")
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
    elif kind == "node_reused":
        err.print(f"  reused from an earlier question: {escape(event['query'])}")
    elif kind == "correction_rejected":
        err.print(f"  [red]correction rejected[/red] ({event['ir']!r})")
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
    # Model loading progress bars would drown the CLI's own progress lines and one-line errors.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' GGUF loading bars
    app()
