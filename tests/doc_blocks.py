"""Run pages' Python blocks as a reader pastes them, in whatever environment runs this file.

    ENV/bin/python -P tests/doc_blocks.py REPORT README.md docs/python.md ...

The first page is the tour: it runs first, and each later page runs in a copy of its namespace
(their blocks use the tour's ``context`` and index), as tests/integration/test_docs.py runs them
in the test environment. A page stops at its first failing block (the next ones use what it
made). One JSON line per page in the file REPORT (stdout is the blocks' own):
``{"page", "ran", "error", "missing"}``, ``error`` the
failure's ``Type: message`` (or null), ``missing`` the module an ImportError names. Standard
library only: the environment under test has what its page installs, nothing of the suite's.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def blocks(page: Path, language: str = "python") -> list[str]:
    """The page's fenced blocks of ``language``, in order."""
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def run_page(page: Path, namespace: dict) -> dict:
    """Run ``page``'s blocks in ``namespace``; what ran and how the first failure read."""
    ran = 0
    for number, block in enumerate(blocks(page), 1):
        try:
            exec(compile(block, f"{page.name} python block {number}", "exec"), namespace)
        except Exception as exc:  # every failure is reported, none hidden
            missing = exc.name if isinstance(exc, ImportError) else None
            return {
                "page": page.name,
                "ran": ran,
                "error": f"{type(exc).__name__}: {exc}",
                "missing": missing,
            }
        ran += 1
    return {"page": page.name, "ran": ran, "error": None, "missing": None}


def main(report: str, paths: list[str]) -> None:
    """Run the pages in order, the first as the tour; a report line each into ``report``."""
    tour: dict = {"__name__": "__readme__"}
    with open(report, "w", encoding="utf-8") as out:
        for number, path in enumerate(paths):
            namespace = tour if number == 0 else dict(tour)
            out.write(json.dumps(run_page(Path(path), namespace)) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
