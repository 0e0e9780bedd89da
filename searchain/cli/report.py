"""``searchain report``: compare evaluation runs in a markdown report with plots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from searchain.cli.common import out


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
