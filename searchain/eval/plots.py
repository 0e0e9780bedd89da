"""``searchain report``'s PNG plots: the main metric by run, knowledge sources, rounds.

Drawn with matplotlib (the ``eval`` extra) on the Agg backend, so no display is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from searchain.eval.runner import SOURCES, Run

MAX_LEGEND = 12
"""Runs a plot's legend names; beyond that the tables do."""


def draw_plots(
    runs: dict[Run, list[dict[str, Any]]],
    names: dict[Run, str],
    summaries: dict[Run, dict[str, Any]],
    out: Path,
    simulated: bool,
) -> list[Path]:
    """Draw the report's plots into ``out``; return the files written."""
    plt = pyplot()
    tag = "SIMULATED — " if simulated else ""
    order = list(runs)
    labels = [names[run] for run in order]
    written = []

    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(order)), _height(labels)))
    ax.bar(range(len(order)), [summaries[run]["main"] or 0 for run in order], color="#4c72b0")
    ax.set_xticks(range(len(order)), labels, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("cover-EM / accuracy")
    ax.set_title(f"{tag}main metric by method")
    written.append(_save(fig, out / "metric_by_method.png"))

    sourced = [run for run in order if summaries[run]["sources"]]
    if sourced:  # only SearChain's interactive runs have knowledge sources
        sourced_names = [names[run] for run in sourced]
        fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(sourced)), _height(sourced_names)))
        bottom = [0.0] * len(sourced)
        for source, color in zip(SOURCES, ("#4c72b0", "#dd8452", "#55a868"), strict=True):
            shares = [summaries[run]["sources"].get(source, 0.0) for run in sourced]
            ax.bar(range(len(sourced)), shares, bottom=bottom, label=source, color=color)
            bottom = [b + s for b, s in zip(bottom, shares, strict=True)]
        ax.set_xticks(range(len(sourced)), sourced_names, rotation=30, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of reasoning steps")
        ax.set_title(f"{tag}knowledge sources")
        ax.legend(loc="lower left")
        written.append(_save(fig, out / "knowledge_sources.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    top = max(r["rounds"] for results in runs.values() for r in results)
    bins = [x - 0.5 for x in range(top + 2)]
    for run in order:
        ax.hist([r["rounds"] for r in runs[run]], bins=bins, histtype="step", label=names[run])
    ax.set_xlabel("rounds per question (SearChain: chains; IRCoT: retrievals)")
    ax.set_ylabel("questions")
    if len(order) <= MAX_LEGEND:
        ax.set_title(f"{tag}rounds")
        ax.legend(fontsize="small")
    else:  # a legend of dozens of runs would not fit; the table names them
        ax.set_title(f"{tag}rounds, {len(order)} runs (see the tables)")
    written.append(_save(fig, out / "rounds_histogram.png"))
    return written


def _height(labels: list[str]) -> float:
    """Figure height with room for rotated run names under the bars, however long."""
    return 3 + 0.08 * max(len(name) for name in labels)


PLOTS_HINT = "plots need matplotlib: pip install 'searchain[eval]'"


def plots_available() -> bool:
    """Whether matplotlib is installed (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def pyplot() -> Any:
    """Matplotlib's pyplot on the file-only Agg backend, or one line naming the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"the report's {PLOTS_HINT}") from None
    return plt


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    # The picture grows to hold every label: long run names rotated under the bars ran off its
    # left edge with the figure's own bounds.
    fig.savefig(path, dpi=100, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)
    return path
