"""``searchain report``: compare evaluation runs in a markdown table and PNG plots.

The analyses follow Xu et al. (WWW 2024): answer metrics by method; where knowledge came from
(Table 2); questions where IR helped or misled, against SearChain without IR (Table 3); reasoning
steps (Table 4); LLM words in and out, rounds and wall time (Table 5). With the simulated models,
hop-level correction precision and recall and the misleading rate are added, and every table and
plot says "SIMULATED".
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from searchain.errors import SettingError
from searchain.eval.datasets import SPLIT_SIZE
from searchain.eval.figures import (
    alce_figures,
    citation_figures,
    format_figures,
    hop_figures,
    main_metric,
)
from searchain.eval.pages import question_pages
from searchain.eval.plots import PLOTS_HINT, draw_plots, plots_available
from searchain.eval.runner import SIMULATED, SOURCES, Run, read_results
from searchain.eval.sections import REPORT_FILE, TITLE, figure_sections, fmt
from searchain.files import write_atomic
from searchain.methods import METHODS
from searchain.text import counted

NO_IR = "searchain-no-ir"
INTERACTIVE = ("searchain", "searchain-no-verify", "searchain-no-complete")


def load_runs(
    paths: Sequence[Path], skipped: list[str] | None = None
) -> dict[Run, list[dict[str, Any]]]:
    """Results grouped by run configuration, each question once (the last line wins).

    A last line a run is still writing, or was killed writing, is left out and named in
    ``skipped``.
    """
    if not paths:
        raise ValueError("give at least one results file")
    runs: dict[Run, dict[str, dict[str, Any]]] = defaultdict(dict)
    for path in paths:
        partial: list[int] = []
        if path.is_dir():
            raise ValueError(f"{path} is a directory: give the results files in it ({path}/*)")
        if not path.is_file():
            raise ValueError(f"results file {path} does not exist")
        for _, result in read_results(path, partial=partial):
            runs[tuple(result["config"].items())][result["id"]] = result
        if skipped is not None:
            skipped += [f"{path} line {number}" for number in partial]
    if not runs:
        raise ValueError(f"no results in {', '.join(map(str, paths))}")
    return {run: list(by_id.values()) for run, by_id in runs.items()}


def wilson(values: list[float], z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a share of 0/1 scores (its mean, for cover-EM's means).

    It says how far a figure from n questions can move with other questions of the same kind:
    about ±0.3 at n = 10, ±0.18 at n = 30, ±0.1 at n = 100.
    """
    n = len(values)
    if not n:
        return None
    share = sum(values) / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _mean(values: list[float]) -> float | None:
    return mean(values) if values else None


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-run means, knowledge-source shares and (where hops matched) correction figures."""
    metric_names = sorted({name for r in results for name in r["metrics"]})
    summary: dict[str, Any] = {
        "n": len(results),
        "asked": max((r.get("asked", 0) for r in results), default=0),
        "main": _mean([main_metric(r) for r in results]),
        "interval": wilson([main_metric(r) for r in results]),
        **{
            name: _mean([r["metrics"][name] for r in results if name in r["metrics"]])
            for name in metric_names
        },
        "rounds": _mean([r["rounds"] for r in results]),
        "steps": _mean([r["steps"] for r in results]),
        "llm_calls": _mean([r["usage"]["llm"]["calls"] for r in results]),
        "words_in": _mean([r["usage"]["llm"]["words_in"] for r in results]),
        "words_out": _mean([r["usage"]["llm"]["words_out"] for r in results]),
        "seconds": _mean([r["seconds"] for r in results]),
    }
    counts = {s: sum(r.get("knowledge_sources", {}).get(s, 0) for r in results) for s in SOURCES}
    total = sum(counts.values())
    summary["sources"] = {s: counts[s] / total for s in SOURCES} if total else None
    hops = [h for r in results for h in r.get("hops", [])]
    if hops:
        summary["hops"] = hop_figures(hops)
    read = [r["format_failures"] for r in results if "format_failures" in r]
    if read:  # results written before failures were recorded have none to count
        summary["format"] = format_figures(read)
    cited = [r["citations"] for r in results if "citations" in r]
    if cited:
        summary["citations"] = citation_figures(cited)
    written = [r["content_source"] for r in results if "content_source" in r]
    if written:  # SearChain's results since provenance was recorded
        summary["composed"] = written.count("composed") / len(written)
    alce = [r["alce"] for r in results if "alce" in r]
    if alce:
        summary["alce"] = alce_figures(alce)
    return summary


def ir_effect(
    runs: dict[Run, list[dict[str, Any]]], run: Run
) -> tuple[float, float, int, Run] | None:
    """Share of questions IR helped and misled in ``run``, against SearChain without IR.

    The baseline is the ``searchain-no-ir`` run with the same data, LLM and simulation
    settings; only questions both answered count. ``None`` when there is no such run.
    """
    config = dict(run)
    for other in runs:
        base = dict(other)
        same = all(base[k] == config[k] for k in config if k not in ("method", "reader", "backend"))
        if base["method"] == NO_IR and same:
            without = {r["id"]: main_metric(r) for r in runs[other]}
            pairs = [(without[r["id"]], main_metric(r)) for r in runs[run] if r["id"] in without]
            if not pairs:
                return None
            helped = sum(1 for before, after in pairs if before < 0.5 <= after)
            misled = sum(1 for before, after in pairs if after < 0.5 <= before)
            return helped / len(pairs), misled / len(pairs), len(pairs), other
    return None


DATASET_ORDER = ("hotpotqa", "musique", "2wikimultihopqa", "strategyqa", "fever")
"""Table columns in the papers' order (SearChain's Table 1, then IRCoT's extra data set)."""


def paper_tables(runs: dict[Run, list[dict[str, Any]]], summaries: dict[Run, Any]) -> list[str]:
    """SearChain's Table 1 and IRCoT's retrieval/QA table, one pair per LLM and split.

    Table 1: its 20 rows (methods without IR, then with IR), run or not, then the other methods
    run, by data set; each cell the main metric (the papers' cover-EM on the generated output;
    accuracy for yes/no and fact checking). IRCoT's table: gold-paragraph recall and official
    EM/F1 for its retrieval methods.
    """
    groups: dict[tuple[str, str], dict[tuple[str, str], list[Run]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for run in runs:
        c = dict(run)
        groups[(c["llm"], c["split"])][(c["method"], c["dataset"])].append(run)
    lines: list[str] = []
    for (llm, split), cells in groups.items():
        datasets = sorted({d for _, d in cells}, key=lambda d: ((*DATASET_ORDER, d)).index(d))
        run = {m for m, _ in cells}
        # Every row of Table 1, run or not ("–"), so a missing baseline shows as a hole; then
        # the other methods that were run. A table of one Table-1 method compares nothing: its
        # row alone, and a line for the rest.
        sections = [
            ("without IR", [m for m, x in METHODS.items() if x.table1 and not x.uses_ir]),
            ("with IR", [m for m, x in METHODS.items() if x.table1 and x.uses_ir]),
            (
                "not in Table 1",
                [m for m in METHODS if not METHODS[m].table1 and m in run]
                + sorted(run - set(METHODS)),
            ),
        ]
        table1 = [m for m, x in METHODS.items() if x.table1]
        compared = len(run & set(table1)) >= 2
        if not compared:
            sections = [(title, [m for m in group if m in run]) for title, group in sections]
        methods = [m for _, group in sections for m in group]

        header = "| method | " + " | ".join(datasets) + " |"
        rule = "|---|" + "---|" * len(datasets)
        ns = {summaries[r]["n"] for found in cells.values() for r in found}
        # One n for the whole table goes in its heading; cells of differing n each say theirs.
        show_n = len(ns) > 1
        each = " (n in each cell)" if show_n else f" ({counted(ns.pop(), 'question')} each)"
        lines += [
            "",
            f"## Table 1 (SearChain): main metric by method and data set — LLM {llm}, "
            f"{split}{each}",
            "",
            header,
            rule,
        ]
        for title, group in sections:
            if group:
                lines.append(f"| **{title}** |" + " |" * len(datasets))
            lines += [
                f"| {m} | "
                + " | ".join(
                    _cell(cells.get((m, d), []), summaries, show_n=show_n) for d in datasets
                )
                + " |"
                for m in group
            ]
        if not compared:
            missing = len(set(table1) - run)
            lines += ["", f"{missing} of Table 1's {len(table1)} methods were not run."]
        ircot = [m for m in ("direct", "cot", "oner", "ircot") if m in methods]
        if ircot:
            lines += [
                "",
                f"## IRCoT: retrieval recall and QA — LLM {llm}, {split}",
                "",
                "| method | "
                + " | ".join(f"{d} recall | {d} EM | {d} F1" for d in datasets)
                + " |",
                "|---|" + "---|---|---|" * len(datasets),
            ]
            for m in ircot:
                row = " | ".join(
                    " | ".join(
                        _cell(cells.get((m, d), []), summaries, metric, show_n=show_n)
                        for metric in ("paragraph_recall", "em", "f1")
                    )
                    for d in datasets
                )
                lines.append(f"| {m} | {row} |")
    return lines


def _cell(
    found: list[Run], summaries: dict[Run, Any], metric: str = "main", *, show_n: bool = False
) -> str:
    """One table cell: ``metric`` of each run found for it ("–" for none).

    Several runs in one cell (another reader, backend or K) are each labelled with the settings
    that tell them apart, and a run with a simulated model says so in the cell itself, so no
    figure can be read as another run's.
    """
    configs = [dict(run) for run in found]
    apart = sorted(k for k in configs[0] if len({c[k] for c in configs}) > 1) if found else []
    values = []
    for run, config in zip(found, configs, strict=True):
        tags = [f"{k}={config[k]}" for k in apart]
        if SIMULATED in (config["llm"], config["reader"]):
            tags.append("simulated")
        if show_n:  # the table's runs answered different numbers of questions
            tags.append(f"n={summaries[run]['n']}")
        value = fmt(summaries[run].get(metric))
        values.append(f"{value} ({', '.join(tags)})" if tags else value)
    return " / ".join(values) or "–"


def answered(summary: dict[str, Any]) -> str:
    """How many questions a run answered, of the split, and of those asked if it stopped."""
    n, asked = summary["n"], summary.get("asked") or 0
    stopped = f", stopped at {n} of {asked} asked" if asked > n else ""
    return f"{n} ({100 * n / SPLIT_SIZE:.0f}% of the split{stopped})"


def interval(summary: dict[str, Any]) -> str:
    """The main metric's 95% interval, as the report shows it."""
    found = summary.get("interval")
    return f"{found[0]:.2f}–{found[1]:.2f}" if found else "–"


def label(run: Run, varying: set[str]) -> str:
    """A short name for a run: its method, then the settings that differ between runs.

    A run of the simulated LLM always says so, with the p and u it was given.
    """
    config = dict(run)
    llm_simulated = config["llm"] == SIMULATED
    shown = varying - {"method", "model"} - ({"p", "u"} if llm_simulated else set())
    parts = [config["method"]] + [
        f"{k}={config[k]}" for k in sorted(shown) if config[k] is not None
    ]
    text = " ".join(parts)
    if llm_simulated:
        return f"{text} (simulated p={config['p']} u={config['u']})"
    return f"{text} (simulated)" if config["reader"] == SIMULATED else text


def write_report(paths: Sequence[Path], out: Path) -> list[Path]:
    """Write ``report.md`` and the PNG plots into ``out``; return the files written.

    Results that kept their tree (SearChain's) also get one HTML page each, under ``pages/``.
    Without matplotlib (the ``eval`` extra) the report is text only and says so.
    """
    skipped: list[str] = []
    runs = load_runs(paths, skipped)
    if out.exists() and not out.is_dir():
        raise SettingError(
            "{out} {path} is a file: give a directory for the report",
            settings=("out",),
            path=out,
        )
    keys = list(dict(next(iter(runs))).keys())
    varying = {k for k in keys if len({dict(r).get(k) for r in runs}) > 1}
    names = {run: label(run, varying) for run in runs}
    runs = {run: runs[run] for run in sorted(runs, key=names.__getitem__)}
    summaries = {run: summarize(results) for run, results in runs.items()}
    simulated = any(SIMULATED in (dict(run)["llm"], dict(run)["reader"]) for run in runs)
    out.mkdir(parents=True, exist_ok=True)
    lines = [TITLE, ""]
    if skipped:
        lines += [
            f"Left out: {', '.join(skipped)}, the unfinished last line of a run still being "
            "written or killed mid-write (`searchain eval` answers its question again).",
            "",
        ]
    if simulated:
        lines += [
            "**SIMULATED**: runs marked *(simulated …)* used the simulated LLM and/or reader "
            "(answers drawn from MuSiQue's gold decompositions); they measure retrieval and "
            "SearChain's decision logic, not a language model.",
            "",
        ]
    lines += [
        "Main metric: the papers' cover-EM (the gold answer occurs in the whole generated "
        "output; a verbatim copy of the question in it does not count) for questions, accuracy "
        "for yes/no and fact checking. *cover-EM (answer)*: "
        "the same on the extracted answer only. EM and F1: the official HotpotQA (and "
        "2WikiMultihopQA) and MuSiQue scripts' definitions. Every answer metric reads only what "
        "the model wrote: a final content searchain composed from the path (*composed*, in the "
        "citations table) and an answer it took from the last step are shown, never scored. "
        "Recall: gold paragraphs among those retrieved. Words and calls: the reasoning LLM, "
        "per question.",
        *paper_tables(runs, summaries),
        "",
        "## All runs (reasoning steps: Table 4; LLM cost and time: Table 5)",
        "",
        f"*n*: questions answered, of the split's {SPLIT_SIZE} (and of those asked, when a run "
        "stopped early: rerun its `searchain eval` to finish). *95% interval*: the Wilson "
        "interval of the main metric; at n = 30 a difference of 0.2 between runs can be "
        "chance.",
        "",
        "| run | dataset | split | llm | reader | n | main | 95% interval | cover-EM (answer) "
        "| EM | F1 | recall | rounds | steps | LLM calls | words in | words out | s/question |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run, s in summaries.items():
        c = dict(run)
        llm = c["llm"] if c.get("model") in ("", c["llm"]) else f"{c['llm']} → {c['model']}"
        lines.append(
            f"| {names[run]} | {c['dataset']} | {c['split']} | {llm} | {c['reader']} "
            f"| {answered(s)} | {fmt(s['main'])} | {interval(s)} "
            f"| {fmt(s.get('cover_em_answer'))} "
            f"| {fmt(s.get('em'))} | {fmt(s.get('f1'))} "
            f"| {fmt(s.get('paragraph_recall'))} | {fmt(s['rounds'])} | {fmt(s['steps'])} "
            f"| {fmt(s['llm_calls'])} | {fmt(s['words_in'])} | {fmt(s['words_out'])} "
            f"| {fmt(s['seconds'])} |"
        )
    interactive = [run for run in runs if dict(run)["method"] in INTERACTIVE]
    if interactive:
        lines += [
            "",
            "## Where knowledge came from (reasoning steps, Table 2)",
            "",
            "| run | LLM | corrected by IR | completed by IR |",
            "|---|---|---|---|",
        ]
        for run in interactive:
            shares = summaries[run]["sources"] or {}
            lines.append(
                f"| {names[run]} | "
                + " | ".join(fmt(shares.get(s), percent=True) for s in SOURCES)
                + " |"
            )
        lines += [
            "",
            "## IR helped / misled, against SearChain without IR (Table 3)",
            "",
            "| run | baseline | questions | IR helped | IR misled |",
            "|---|---|---|---|---|",
        ]
        for run in interactive:
            effect = ir_effect(runs, run)
            if effect is None:
                lines.append(f"| {names[run]} | no {NO_IR} run to compare with | – | – | – |")
                continue
            helped, misled, n, base = effect
            lines.append(
                f"| {names[run]} | {names[base]} | {n} | {fmt(helped, percent=True)} "
                f"| {fmt(misled, percent=True)} |"
            )
    lines += figure_sections(runs, names, summaries)
    lines += question_pages(runs, names, out)
    plots = draw_plots(runs, names, summaries, out, simulated) if plots_available() else []
    lines += ["", "## Plots", ""]
    if plots:
        lines += [f"![{p.stem}]({p.name})" for p in plots]
    else:
        lines.append(f"None drawn: {PLOTS_HINT}. The tables above hold every figure.")
    report = write_atomic(out / REPORT_FILE, "\n".join(lines) + "\n")
    return [report, *plots]
