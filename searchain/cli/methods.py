"""``searchain methods``: every method ``searchain eval --method`` runs, from their registry."""

from __future__ import annotations

from typing import Annotated

import typer


def methods(
    table1: Annotated[
        bool, typer.Option("--table1", help="Only SearChain's Table 1 rows, in its order.")
    ] = False,
) -> None:
    """List the methods, one a line: its name, a tab, what it does (Table 1's order first)."""
    from searchain.methods import METHODS

    for name, method in METHODS.items():
        if method.table1 or not table1:
            typer.echo(f"{name}\t{method.description}")
