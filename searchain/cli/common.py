"""What every command shares: consoles, one-line errors, options several commands take."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

out = Console(highlight=False)
"""Results (stdout): what a script may capture."""
err = Console(stderr=True, highlight=False)
"""Progress and errors (stderr), so that stdout stays clean for ``--json``."""
F = TypeVar("F", bound=Callable[..., Any])

BACKENDS = ("embedded", "elasticsearch")

IndexOption = Annotated[Path, typer.Option("--index", help="Embedded index directory.")]
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
        except Exception as exc:  # an LLM provider's client error: one line, not its traceback
            from searchain.tools.providers import explain

            line = explain(exc)
            if line is None:
                raise
            err.print(f"[red]error:[/red] {escape(line)}", soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def check_backend(backend: str) -> None:
    """Reject an unknown --backend in one line."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: use embedded or elasticsearch")
