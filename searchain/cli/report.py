"""``searchain report``: compare evaluation runs in a markdown report with plots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from searchain.cli.common import ForceOption, err, out


def report(
    results: Annotated[
        list[Path], typer.Argument(metavar="RESULTS", help="Results files of `searchain eval`.")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Directory for report.md and PNGs.")
    ] = Path("report"),
    force: ForceOption = False,
) -> None:
    """Compare evaluation runs: a markdown report, a page per SearChain question, PNG plots."""
    from searchain.eval.plots import PLOTS_HINT, plots_available
    from searchain.eval.report import write_report
    from searchain.eval.sections import REPORT_FILE, is_report
    from searchain.files import check_target

    if out_dir.is_dir():  # a folder that holds a report.md of someone else's is left alone
        check_target(out_dir / REPORT_FILE, "--out", what="report", ours=is_report, force=force)
    elif out_dir.exists() or out_dir.is_symlink():
        what = "a file" if out_dir.is_file() else "not a directory"
        raise ValueError(f"--out {out_dir} is {what}: give a directory for the report")

    for path in write_report(results, out_dir):
        out.print(str(path))
    if not plots_available():
        note = f"no plots drawn: {PLOTS_HINT} (the report's tables hold every figure)"
        err.print(f"[yellow]note:[/yellow] {escape(note)}")
