"""Run pages' Python blocks as a reader pastes them, in whatever environment runs this file.

    ENV/bin/python -P tests/doc_blocks.py REPORT [--facts FACTS] README.md docs/python.md ...

The first page is the tour: it runs first, and each later page runs in a copy of its namespace
(their blocks use the tour's ``context`` and index), as tests/integration/test_docs.py runs them
in the test environment. A page stops at its first failing block (the next ones use what it
made). One JSON line per page in the file REPORT (stdout is the blocks' own):
``{"page", "ran", "error", "missing"}``, ``error`` the
failure's ``Type: message`` (or null), ``missing`` the module an ImportError names. With
``--facts FACTS``, a JSON object of ``{name: expression}``, each expression is evaluated after
the last page in the pages' names together (a later page's win) and the file becomes
``{name: value}``, null where a name it uses was never made: what the test asserts of objects
made in this environment. Standard library only: the environment under test has what its page
installs, nothing of the suite's.
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


def facts(expressions: dict[str, str], namespace: dict) -> dict:
    """Each expression's value in ``namespace``; None where it names what was never made."""
    found = {}
    for name, expression in expressions.items():
        try:
            found[name] = eval(expression, dict(namespace))
        except NameError:
            found[name] = None
    return found


def main(report: str, paths: list[str], facts_file: str | None = None) -> None:
    """Run the pages in order, the first as the tour; a report line each into ``report``."""
    tour: dict = {"__name__": "__readme__"}
    together: dict = {}
    with open(report, "w", encoding="utf-8") as out:
        for number, path in enumerate(paths):
            namespace = tour if number == 0 else dict(tour)
            out.write(json.dumps(run_page(Path(path), namespace)) + "\n")
            out.flush()
            together.update(namespace)
    if facts_file:
        expressions = json.loads(Path(facts_file).read_text(encoding="utf-8"))
        Path(facts_file).write_text(json.dumps(facts(expressions, together)), encoding="utf-8")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[1:2] == ["--facts"]:
        main(args[0], args[3:], args[2])
    else:
        main(args[0], args[1:])
