"""What every command shares: consoles, one-line errors, options several commands take."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_type_hints

import typer
import typer.models
from rich.console import Console
from rich.markup import escape

out = Console(highlight=False, soft_wrap=True)
"""Results (stdout): what a script may capture; a line is never cut at the terminal's width."""
err = Console(stderr=True, highlight=False, soft_wrap=True)
"""Progress and errors (stderr), so that stdout stays clean for ``--json``."""
F = TypeVar("F", bound=Callable[..., Any])

BACKENDS = ("embedded", "elasticsearch")

IndexOption = Annotated[
    Path, typer.Option("--index", envvar="SEARCHAIN_INDEX", help="Embedded index directory.")
]
BackendOption = Annotated[str, typer.Option(help="embedded (bm25s, no server) or elasticsearch.")]
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
        help="Write the answers and their Tree-of-Reasoning into this self-contained HTML page."
    ),
]


def friendly_errors(command: F) -> F:
    """Turn expected failures (bad input, missing files or extras) into one line and exit 1."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _reject_flag_values(command, kwargs)
            return command(*args, **kwargs)
        except (ValueError, OSError, ImportError) as exc:
            err.print(f"[red]error:[/red] {escape(str(exc))}")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("[red]interrupted[/red]")
            raise typer.Exit(130) from None
        except Exception as exc:  # an LLM provider's client error: one line, not its traceback
            from searchain.tools.llms.server import explain

            line = explain(exc)
            if line is None:
                raise
            err.print(f"[red]error:[/red] {escape(line)}")
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


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
