"""The ``searchain`` command: :func:`main` here, the Typer app in :mod:`searchain.cli.app`.

This module imports nothing heavy, so that Ctrl-C pressed while the app's modules load (half a
second and more) is still one line, not a traceback of whichever import it landed in.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Entry point of the ``searchain`` script."""
    try:
        from searchain.cli.app import run

        run()
    except KeyboardInterrupt:
        os.write(2, b"interrupted\n")
        sys.exit(130)
