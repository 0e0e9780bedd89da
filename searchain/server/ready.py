"""Whether the deployment can answer: its LLM, reader, verifier and index loaded once, for real.

``scripts/server.sh start`` runs ``python -m searchain.server.ready`` in the server's environment
with the deployment's settings, after the database is prepared and before it says ``ready``: a
server whose LLM needs a package its environment lacks, whose reader has no weights, whose
OpenAI-compatible server is unreachable or does not serve the model, or whose index is missing
is refused in one line, never reported ready while every run would fail. Nothing is asked of a
paid API but its model list; models load and are dropped with this process.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from searchain.preload import preload
from searchain.server.settings import deployment
from searchain.tools.llms.resolve import llm_choices
from searchain.tools.readers.auto import auto_reader
from searchain.tools.readers.calibration import theta_line


def check() -> list[str]:
    """Load what every run of the deployment uses; the lines that say what defaults stood for."""
    context = deployment().context
    notes = [auto_reader().line()] if context.reader == "auto" else []
    preload(context)
    notes.append(theta_line(context.reader, context.llm, context.theta))
    for name, spec in sorted(llm_choices().items()):  # each model a caller may choose answers
        try:
            preload(replace(context, llm=spec))
        except (ImportError, ValueError, OSError) as exc:
            raise ValueError(f"SEARCHAIN_LLM_CHOICES[{name!r}] ({spec}): {exc}") from None
    return notes


def main() -> None:
    """Print what the defaults stood for; a deployment that cannot answer is one line, exit 1."""
    try:
        notes = check()
    except (ImportError, ValueError, OSError) as exc:
        sys.exit("error: " + " ".join(str(exc).split()))
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
