"""What every command shares: consoles, one-line errors, options several commands take."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_type_hints

import typer
import typer.models
from rich.console import Console
from rich.markup import escape

from searchain.cli.words import cli_words
from searchain.errors import Worded

out = Console(highlight=False, soft_wrap=True)
"""Results (stdout): what a script may capture; a line is never cut at the terminal's width."""
UNBOUNDED = 1 << 20
"""The width a layout (the tree) is drawn at for a pipe or a file: no line is ever cut."""
_unbounded = Console(highlight=False, width=UNBOUNDED)
"""Stdout as a pipe or file sees it: layouts drawn at :data:`UNBOUNDED` columns."""


def print_layout(renderable: Any) -> None:
    """Print a layout (the tree) on stdout, wrapped to a terminal and never cut in a pipe or file.

    Rich draws a layout for a pipe or a file at 80 columns (or ``$COLUMNS``) and crops each line
    there, which lost the verdicts and node numbers at the end of the tree's lines.
    """
    (out if out.is_terminal else _unbounded).print(renderable, soft_wrap=False)


err = Console(stderr=True, highlight=False, soft_wrap=True)
"""Progress and errors (stderr), so that stdout stays clean for ``--json``."""
F = TypeVar("F", bound=Callable[..., Any])

BACKENDS = ("embedded", "elasticsearch")

IndexOption = Annotated[
    Path, typer.Option("--index", envvar="SEARCHAIN_INDEX", help="Embedded index directory.")
]
BackendOption = Annotated[
    str,
    typer.Option(
        help="embedded (searchain's own BM25 index in a directory, no server) or elasticsearch."
    ),
]
EsUrlOption = Annotated[
    str, typer.Option("--es-url", help="Elasticsearch URL (default: ES_URL, then localhost:9200).")
]
EsIndexOption = Annotated[str, typer.Option("--es-index", help="Elasticsearch index name.")]
EsTitleFieldOption = Annotated[
    str,
    typer.Option("--es-title-field", help="Elasticsearch: the title field ('' for none)."),
]
EsTextFieldOption = Annotated[
    str, typer.Option("--es-text-field", help="Elasticsearch: the text field.")
]
EsIdFieldOption = Annotated[
    str, typer.Option("--es-id-field", help="Elasticsearch: _id, or the field holding the id.")
]
DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="SEARCHAIN_DB",
        help="Threads and checkpoints: a SQLite file, or a postgresql:// URL.",
    ),
]
DEFAULT_DB = ".searchain/threads.sqlite"
HtmlOption = Annotated[
    Path | None,
    typer.Option(
        help="Write the answers and their Tree-of-Reasoning into this self-contained HTML page "
        "(a new file, or a page searchain wrote)."
    ),
]
ForceOption = Annotated[
    bool,
    typer.Option("--force", help="Replace an output file that searchain did not write."),
]


def page_target(html: Path | None, force: bool, **inputs: str | Path) -> Path | None:
    """``--html``'s file, checked before any work (see :func:`searchain.files.check_target`).

    ``inputs`` are the command's other paths by option name (``db=``, ``index=``).
    """
    if html is None:
        return None
    from searchain.files import check_target
    from searchain.page import is_page

    used = [(f"--{name}", Path(path)) for name, path in inputs.items() if "://" not in str(path)]
    # A SQLite database's journal, shared memory and searchain's locks are part of it: written
    # over while the run holds them open, the database is lost (its WAL appears mid-run).
    used += [(name, path.with_name(path.name + end)) for name, path in used if name == "--db"
             for end in SQLITE_FILES]  # fmt: skip
    return check_target(html, "--html", what="page", ours=is_page, force=force, inputs=used)


SQLITE_FILES = ("-wal", "-shm", "-journal", ".locks")
"""What SQLite (and searchain's thread locks) keep beside a database file."""


def friendly_errors(command: F) -> F:
    """Turn every failure into one line on stderr and a non-zero exit; Ctrl-C into ``interrupted``.

    Expected failures (bad input, missing files or extras, a provider's refusal) are their own
    line; anything else is its type and first line, with the way to see its traceback
    (``SEARCHAIN_TRACEBACK=1``). Typer's own exits and usage errors pass through.
    """

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _reject_flag_values(command, kwargs)
            return command(*args, **kwargs)
        except BrokenPipeError:
            # Whoever read the output stopped (``| head``): quiet, as a shell's tools are. The
            # rest of the output goes nowhere, so Python's last flush cannot fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
        except (ValueError, OSError, ImportError) as exc:
            err.print(f"[red]error:[/red] {escape(first_line(exc))}")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("[red]interrupted[/red]")
            raise typer.Exit(130) from None
        except Exception as exc:
            # Typer's own exits and usage errors (typer.Exit is a RuntimeError; click's, in the
            # typer versions that do not vendor it), and a traceback asked for, pass through.
            parser = type(exc).__module__.split(".")[0] in ("typer", "click")
            if parser or os.environ.get(TRACEBACK_ENV) == "1":
                raise
            from searchain.tools.llms.server import explain

            line = explain(exc) or (
                f"{type(exc).__name__}: {first_line(exc)} (unexpected: {TRACEBACK_ENV}=1 shows "
                "its traceback; please report it)"
            )
            err.print(f"[red]error:[/red] {escape(line)}")
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


TRACEBACK_ENV = "SEARCHAIN_TRACEBACK"
"""Set to 1, an unexpected error shows its Python traceback instead of one line."""


def first_line(exc: BaseException) -> str:
    """An exception's message as one line: its first non-blank line (its type when it has none).

    A refusal that names settings names them as this CLI's flags and commands.
    """
    text = exc.worded(cli_words) if isinstance(exc, Worded) else str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _reject_flag_values(command: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    """Refuse an option whose value is another option (``--db --demo``).

    The parser hands an option the next word whatever it is, so a forgotten value would
    otherwise quietly become a file named ``--demo`` in the working directory.
    """
    hints = get_type_hints(command, include_extras=True)
    for name, value in kwargs.items():
        if not (isinstance(value, str | Path) and str(value).startswith("--")):
            continue
        for info in getattr(hints.get(name), "__metadata__", ()):
            if isinstance(info, typer.models.OptionInfo):
                flag = info.default if isinstance(info.default, str) else ""
                flag = flag if flag.startswith("--") else "--" + name.replace("_", "-")
                raise ValueError(f"{flag} needs a value, got the option {str(value)!r}")


def check_backend(backend: str) -> None:
    """Reject an unknown --backend in one line."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: use embedded or elasticsearch")
