"""``searchain eval``: run one method over a data set split, one JSON line per question."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from searchain.cli.common import BackendOption, EsUrlOption, err
from searchain.methods import METHODS
from searchain.text import counted


def evaluate(
    dataset: Annotated[
        str, typer.Option(help="musique, hotpotqa, 2wikimultihopqa, strategyqa or fever.")
    ],
    method: Annotated[
        str,
        typer.Option(
            help=f"{', '.join(METHODS)} (SearChain's Table 1 order, then IRCoT and ReAct)."
        ),
    ],
    out_file: Annotated[Path, typer.Option("--out", help="Results file (JSON lines; resumed).")],
    split: Annotated[str, typer.Option(help="tune (first 100) or report (last 100).")] = "tune",
    llm: Annotated[
        str, typer.Option(envvar="SEARCHAIN_LLM", help="An LLM spec (as for ask), or simulated.")
    ] = "auto",
    reader: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_READER",
            help="SearChain methods: a reader spec (as for ask; llm:local), simulated; auto is "
            "recorded as the reader it chose.",
        ),
    ] = "auto",
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
    k: Annotated[
        int | None,
        typer.Option("--k", help="Paragraphs per retrieval (IRCoT's K, OneR's K); tune it."),
    ] = None,
    demos: Annotated[
        str,
        typer.Option(
            help="IRCoT's family's demonstrations: tuning (from the data set's tuning split) "
            "or paper (IRCoT's published ones)."
        ),
    ] = "tuning",
    verifier: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_VERIFIER",
            help="SearChain methods: who judges the citations, lexical (offline) or nli:MODEL "
            "(an NLI model's hub name or directory; adds ALCE's citation figures).",
        ),
    ] = "lexical",
    concurrency: Annotated[int, typer.Option(help="Questions answered at once.")] = 1,
    p: Annotated[
        float | None,
        typer.Option("--p", help="Simulated LLM: chance of a wrong hop answer (default 0)."),
    ] = None,
    u: Annotated[
        float | None,
        typer.Option("--u", help="Simulated LLM: chance of an unsolved hop (default 0)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Simulated LLM: seed of its draws.")] = 0,
    data: Annotated[
        Path | None,
        typer.Option(help="Data directory (default: SEARCHAIN_DATA_DIR, ../shared/data)."),
    ] = None,
) -> None:
    """Run METHOD over a data set split, one JSON line per question; rerun to resume."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from searchain.eval.datasets import data_dir
    from searchain.eval.report import summarize
    from searchain.eval.runner import SIMULATED, EvalSpec, done_ids, read_results, run_records
    from searchain.eval.setup import check, eval_context, eval_records
    from searchain.files import check_target
    from searchain.methods import get_method
    from searchain.tools.llms.resolve import model_identity
    from searchain.tools.readers.auto import auto_reader
    from searchain.tools.readers.calibration import theta_line

    simulated_llm = llm == SIMULATED
    # IRCoT's family answers with the LLM, and SearChain without IR reads no passage.
    reads = get_method(method).reads
    chosen = auto_reader() if reads and reader == "auto" else None
    if chosen is not None:  # the results record the reader that read, not what auto meant
        reader = chosen.spec
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
        k=k,
        demos=demos,
        verifier=verifier,
    )
    check(spec)
    # What ``auto`` means here, and which file a GGUF model is: recorded in every line, so a
    # file never mixes two models' answers.
    spec = replace(spec, model=SIMULATED if simulated_llm else model_identity(llm))
    # A directory, a missing folder or a results file of another run fail before anything loads.
    check_target(out_file, "--out", what="results file", ours=None, force=False)
    done_ids(out_file, spec)
    root = data_dir(data)
    records = eval_records(root, spec, limit)
    context = eval_context(
        root, spec, index=index, es_url=es_url, es_index=es_index, stage=err.print
    )
    tag = "[bold red]SIMULATED[/bold red] " if spec.simulated else ""
    draws = f", p={spec.p} u={spec.u} seed={spec.seed}" if simulated_llm else ""
    err.print(
        f"{tag}{method} on {dataset} {split} ({counted(len(records), 'question')}{draws}) → "
        f"{out_file}",
    )
    if chosen is not None:
        err.print(escape(chosen.line()))
    if reads and not spec.simulated:  # which θ Verify uses, and where it came from
        err.print(escape(theta_line(reader, llm, None)))
    if simulated_llm and not spec.p and not spec.u:
        err.print(
            "[yellow]note:[/yellow] with --p 0 and --u 0 the simulated LLM answers every hop "
            "right and leaves none unsolved, so Verify and Complete have nothing to do: give "
            "--p (wrong hops) and --u (unsolved hops), e.g. --p 0.3 --u 0.1",
        )
    columns = (f"{tag}{method}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=err, transient=True) as bar:
            task = bar.add_task(method, total=len(records))

            def answered(result: dict[str, Any]) -> None:
                bar.advance(task)
                if not err.is_terminal:  # a log file, CI: a line per question, no bar to see
                    done = int(bar.tasks[0].completed)
                    scores = ", ".join(f"{k} {v:.2f}" for k, v in sorted(result["metrics"].items()))
                    err.print(
                        f"{tag}{done}/{len(records)} {escape(str(result['id']))}: {escape(scores)} "
                        f"({result['seconds']:.1f} s)",
                    )

            ran = asyncio.run(
                run_records(
                    spec,
                    records,
                    context,
                    out_file,
                    concurrency=concurrency,
                    on_result=answered,
                    on_start=lambda skipped: bar.update(task, completed=skipped),
                )
            )
    except KeyboardInterrupt:
        kept = len(done_ids(out_file, spec) & {r.id for r in records})
        err.print(
            f"[red]interrupted[/red]: {kept} of {counted(len(records), 'question')} are in "
            f"{escape(str(out_file))}; run the same command again to answer the rest",
        )
        raise typer.Exit(130) from None
    wanted = {r.id for r in records}
    results = [r for _, r in read_results(out_file) if r["id"] in wanted]
    s = summarize(results)
    figures = ", ".join(
        f"{name} {s[name]:.3f}"
        for name in ("cover_em", "cover_em_answer", "em", "f1", "accuracy", "paragraph_recall")
        if s.get(name) is not None
    )
    err.print(
        f"{tag}{ran} answered now, {len(results)} in all: {figures}; "
        f"{s['rounds']:.2f} rounds, {s['seconds']:.2f} s per question",
    )
