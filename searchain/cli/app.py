"""The ``searchain`` app: one module per command, registered on one Typer app here."""

from __future__ import annotations

import os
import warnings
from typing import Annotated, Any

import typer
import typer.core

from searchain.cli.ask import ask
from searchain.cli.calibrate import calibrate
from searchain.cli.common import friendly_errors
from searchain.cli.edit import edit
from searchain.cli.evaluate import evaluate
from searchain.cli.index import index
from searchain.cli.methods import methods
from searchain.cli.report import report
from searchain.cli.resume import resume
from searchain.cli.show import show
from searchain.cli.threads import threads

_python_format = warnings.formatwarning

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    # Plain help and usage errors: rich's boxes cut option names at 80 columns
    # ("--approve-correctio…") and show flags as taking a value ("--json <bool>").
    rich_markup_mode=None,
    help="Search-in-the-Chain: multi-hop answers checked step by step against retrieval.",
)


class _Command(typer.core.TyperCommand):
    """A command whose usage line names its arguments as its help does.

    ``QUESTION``, not typer's ``{question}``; ``[CORPUS]`` when optional; ``RESULTS...`` when
    repeated.
    """

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, typer.core.TyperArgument):
                name = param.metavar or (param.name or "").upper()
                name += "..." if param.nargs != 1 else ""
                pieces.append(name if param.required else f"[{name}]")
        return pieces


@app.callback(invoke_without_command=True)
def _version(
    version: Annotated[
        bool, typer.Option("--version", help="Print searchain's version and exit.", is_eager=True)
    ] = False,
) -> None:
    """Search-in-the-Chain: multi-hop answers checked step by step against retrieval."""
    if version:
        from searchain import __version__

        typer.echo(f"searchain {__version__}")
        raise typer.Exit()


for name, command in (
    ("index", index),
    ("ask", ask),
    ("resume", resume),
    ("edit", edit),
    ("threads", threads),
    ("show", show),
    ("eval", evaluate),
    ("methods", methods),
    ("report", report),
    ("calibrate", calibrate),
):
    app.command(name, cls=_Command)(friendly_errors(command))


def run() -> None:
    """Run the app on the command line's arguments (:func:`searchain.cli.main` calls it)."""
    # Model loading progress bars would drown the CLI's own progress lines and one-line errors.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' GGUF loading bars
    warnings.formatwarning = _one_line
    app()


def _one_line(message: Warning | str, category: type[Warning], *where: object) -> str:
    """The project's own warnings as one line, as its errors are; others as Python shows them."""
    if category.__module__.startswith("searchain."):
        return f"warning: {message}\n"
    return _python_format(message, category, *where)  # type: ignore[arg-type]
