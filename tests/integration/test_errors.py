"""Every failure of the CLI is one line on stderr and a non-zero exit, whatever its type and
whenever it comes: Ctrl-C while the modules load included."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.integration


def run_main(prelude: str, *args: str, env: dict[str, str] | None = None):
    """``searchain ARGS`` in a fresh interpreter, after ``prelude`` (a fault it plants)."""
    code = textwrap.dedent(prelude) + textwrap.dedent(f"""
        import sys
        sys.argv = ["searchain", *{list(args)!r}]
        from searchain.cli import main
        main()
    """)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )


def test_ctrl_c_while_the_modules_load_is_one_line():
    """Issue 42, case 4: Ctrl-C in the first half second of any command was a 43-line
    traceback (it lands in whichever import is running)."""
    prelude = """
        import builtins
        real = builtins.__import__
        def interrupted(name, *args, **kwargs):
            if name == "typer":
                raise KeyboardInterrupt
            return real(name, *args, **kwargs)
        builtins.__import__ = interrupted
    """
    done = run_main(prelude, "threads")
    assert (done.returncode, done.stderr, done.stdout) == (130, "interrupted\n", "")


def test_an_unexpected_error_is_one_line_with_the_way_to_its_traceback(tmp_path):
    """Issue 42, case 4: the CLI's wrapper caught ValueError, OSError and ImportError only: a
    RuntimeError (a dead build worker's) was a 57-line traceback."""
    prelude = """
        import searchain.threads
        def broken(*args, **kwargs):
            raise RuntimeError("the store broke\\nsecond line of its message")
        searchain.threads.open_store = broken
    """
    db = str(tmp_path / "t.sqlite")
    done = run_main(prelude, "threads", "--db", db)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "error: RuntimeError: the store broke (unexpected: SEARCHAIN_TRACEBACK=1 shows its "
        "traceback; please report it)"
    ]
    shown = run_main(prelude, "threads", "--db", db, env={**os.environ, "SEARCHAIN_TRACEBACK": "1"})
    assert shown.returncode == 1 and "Traceback (most recent call last)" in shown.stderr
    # Typer's own exits pass through untouched: usage errors keep exit 2.
    usage = run_main("", "threads", "--bogus")
    assert usage.returncode == 2 and "No such option: --bogus" in usage.stderr
