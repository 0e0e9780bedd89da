"""``searchain calibrate``: measure what a reader's confidence means, and write its θ."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from searchain.cli.common import err, print_layout

if TYPE_CHECKING:
    from searchain.eval.calibrate import Reading
    from searchain.tools.readers.calibration import Calibration


def calibrate(
    reader: Annotated[
        str,
        typer.Option(
            envvar="SEARCHAIN_READER",
            help="The reader to measure (a spec, as for ask: auto, llm, dpr:DIR, ...).",
        ),
    ] = "auto",
    llm: Annotated[
        str, typer.Option(envvar="SEARCHAIN_LLM", help="The LLM the llm reader reads with.")
    ] = "auto",
    split: Annotated[
        str,
        typer.Option(
            help="tune (the first 100 records: measures and writes θ) or report (the last 100: "
            "checks the written θ, writes nothing)."
        ),
    ] = "tune",
    limit: Annotated[int, typer.Option(help="Sub-questions read from each data set.")] = 100,
    precision: Annotated[
        float,
        typer.Option(
            help="The precision of corrections θ must reach, at the lower end of its 95% "
            "interval (0-1; 0.5: more often right than wrong)."
        ),
    ] = 0.5,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="The calibration file (default: SEARCHAIN_CALIBRATION, .searchain/"
            "calibration.json); runs read θ from it.",
        ),
    ] = None,
    png: Annotated[
        Path | None, typer.Option(help="Also draw the reliability diagram (the eval extra).")
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(help="Data directory (default: SEARCHAIN_DATA_DIR, ../shared/data)."),
    ] = None,
) -> None:
    """Measure a reader's confidence on sub-questions read on their gold passages.

    Prints how often the reader is right at each confidence, its AUC, and the θ whose
    corrections reach --precision; writes θ where runs read it.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from searchain.eval.calibrate import DATASETS, items, read_items
    from searchain.eval.calibrate import calibrate as measure
    from searchain.eval.datasets import data_dir
    from searchain.files import check_target
    from searchain.tools.readers.calibration import calibration_file, load, reader_identity, save
    from searchain.tools.readers.resolve import resolve_reader

    if split not in ("tune", "report"):
        raise ValueError(f"--split {split!r}: use tune or report")
    if not 0 < precision <= 1:
        raise ValueError(f"--precision {precision}: give a share between 0 and 1")
    if limit < 1:
        raise ValueError(f"--limit {limit}: read at least one sub-question")
    if png is not None:
        pyplot()  # before minutes of reading, not after
    path = out or calibration_file()
    if out is not None:  # a folder, a missing folder, a link: refused before minutes of reading
        check_target(out, "--out", what="calibration file", ours=None, force=False)
    name = reader_identity(reader, llm)
    written = load(path).get(name)
    if split == "report" and written is None:
        raise ValueError(
            f"{path} holds no calibration of the {name} reader: run searchain calibrate "
            "--split tune first (θ is chosen on the tuning split, checked on the reporting one)"
        )
    chosen = resolve_reader(reader, llm)
    if hasattr(chosen, "load"):
        chosen.load()
    batch = items(data_dir(data), split, limit)  # type: ignore[arg-type]
    where = f"{', '.join(DATASETS)} {split} ({len(batch)} sub-questions on their gold passages)"
    err.print(escape(f"calibrating the {name} reader on {where}"))
    columns = ("reading", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("reading", total=len(batch))
        readings = read_items(chosen, batch, lambda n: bar.advance(task, n))
    result = measure(readings, name, precision, where)
    print_layout(table(readings))
    err.print(escape(summary(result, readings, written, split, str(path))))
    if png is not None:
        draw(readings, png, name)
        err.print(escape(f"reliability diagram: {png}"))
    if split == "tune":
        save(path, result)
        err.print(escape(f"written to {path}: ask, eval and the server read θ from there"))


def table(readings: list[Reading]) -> Any:
    """The reliability table: per confidence bin, how many readings and how many right."""
    from rich.table import Table

    from searchain.eval.calibrate import reliability

    shown = Table("confidence from", "to", "readings", "right", "share right")
    for b in reliability(readings):
        share = f"{b.right / b.total:.2f}" if b.total else "-"
        shown.add_row(f"{b.low:.4g}", f"{b.high:.4g}", str(b.total), str(b.right), share)
    return shown


def summary(
    result: Calibration,
    readings: list[Reading],
    written: Calibration | None,
    split: str,
    path: str,
) -> str:
    """The AUC and θ chosen (tuning), or the written θ's precision and recall (reporting)."""
    from searchain.eval.calibrate import above

    line = (
        f"AUC {result.auc:.3f} ± {result.auc_se:.3f}; {result.right} of {result.total} "
        "readings right"
    )
    if written is not None and split == "report":
        if written.theta is None or not written.signal:
            return f"{line}; the written calibration corrects nothing ({written.line(path)})"
        precision, recall, count = above(readings, written.theta)
        return (
            f"{line}; at the written θ = {written.theta:.4g}: {count} readings above it, "
            f"precision {precision:.3f}, recall {recall:.3f}"
        )
    if not result.signal:
        return (
            f"{line}: the confidence carries no signal that a higher one is right more often "
            "(its AUC is not above 0.5 by 2 standard errors): no θ is written, so Verify "
            "corrects nothing"
        )
    if result.theta is None:
        return f"{line}; no θ reaches precision {result.target:.2f}"
    return (
        f"{line}; θ = {result.theta:.4g}: precision {result.precision:.3f}, recall "
        f"{result.recall:.3f} (target precision {result.target:.2f})"
    )


def pyplot() -> Any:
    """The pyplot of matplotlib, drawing to files; the eval extra named when it is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("--png draws with matplotlib: pip install 'searchain[eval]'") from exc
    return plt


def draw(readings: list[Reading], png: Path, name: str) -> None:
    """The reliability diagram: share right per bin against the bin's confidences."""
    from searchain.eval.calibrate import reliability

    plt = pyplot()

    bins = reliability(readings)
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.bar(
        range(len(bins)),
        [b.right / b.total if b.total else 0 for b in bins],
        tick_label=[f"{b.low:.3g}" for b in bins],
    )
    axes.set_xlabel("confidence bin (its lowest confidence)")
    axes.set_ylabel("share of readings right")
    axes.set_title(f"{name}: {sum(b.total for b in bins)} readings")
    figure.tight_layout()
    figure.savefig(png)
    plt.close(figure)
