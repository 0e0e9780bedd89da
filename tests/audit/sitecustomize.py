"""Test-only: the team server's processes log every file they open under a watched folder.

``tests/server.py`` puts this folder on the deployment's ``PYTHONPATH``, so each process of the
server (the preparing step, every uvicorn worker) imports it at start. With
``SEARCHAIN_TEST_WATCHED`` and ``SEARCHAIN_TEST_OPENED`` set, an audit hook appends to the latter
the path of every ``open`` under the former: the hostile suite puts the files a caller names
there (a copy of a key file, a FIFO, a link to /dev/zero) and asserts that nothing was opened.
The hook sees the open before it happens, so a FIFO that would block is logged too.
"""

import os
import sys

WATCHED = os.environ.get("SEARCHAIN_TEST_WATCHED", "")
OPENED = os.environ.get("SEARCHAIN_TEST_OPENED", "")


def _opened(event: str, args: tuple) -> None:
    if event != "open" or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path = os.path.abspath(os.fsdecode(args[0]))
    if path.startswith(WATCHED + os.sep):
        with open(OPENED, "a", encoding="utf-8") as log:  # outside WATCHED: not logged again
            log.write(f"{os.getpid()} {path}\n")


if WATCHED and OPENED:
    sys.addaudithook(_opened)
