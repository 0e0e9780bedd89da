"""Ctrl-C during `ask`/`resume`: the handler's line reaches the terminal wherever the run is."""

import subprocess
import sys
import textwrap

import pytest

# The main thread is inside a console print when the signal lands (the handler runs between two
# of its bytecodes): the console holds nested prints in its buffer until the outer print ends,
# which never happens after os._exit.
INSIDE_A_PRINT = """
from searchain.cli.common import err
from searchain.cli.session import interrupt_handler
with err:
    err.print("progress line")
    interrupt_handler("t1")(2, None)
"""

BETWEEN_PRINTS = """
from searchain.cli.common import err
from searchain.cli.session import interrupt_handler
err.print("progress line")
interrupt_handler("t1")(2, None)
"""


@pytest.mark.parametrize("where", [INSIDE_A_PRINT, BETWEEN_PRINTS], ids=["inside", "between"])
def test_the_interrupt_line_is_written_and_the_exit_is_130(where):
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(where)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 130
    assert done.stderr.endswith("interrupted: continue with `searchain resume t1`\n")
