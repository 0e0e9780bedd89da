"""Prompts as data: TOML files beside this module, read once and validated on first use.

Keeping prompt text out of code means a prompt can be reviewed, diffed and replaced without
touching control flow; the graph only ever asks for a task's :class:`TaskPrompt` or a named
feedback template.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["TaskPrompt", "feedback_template", "render", "task_names", "task_prompt"]


@dataclass(frozen=True)
class TaskPrompt:
    """The Chain-of-Query prompt of one task."""

    name: str
    """Task name as used in the context and the CLI (``qa``, ``yesno``, ...)."""
    description: str
    """One line for ``--help`` and docs."""
    template: str
    """Prompt text with a ``{question}`` placeholder."""
    answer_labels: tuple[str, ...] = ()
    """Closed answer set (``yes``/``no``, ``SUPPORTS``/``REFUTES``); empty for free text."""
    long_form: bool = False
    """Verify long-form answers with ROUGE-L against the passage instead of span containment."""
    interactive: bool = True
    """Check the chain against IR; ``False`` (``no_ir``) answers from the first chain as written."""


def _load(name: str) -> dict[str, object]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def _tasks() -> dict[str, TaskPrompt]:
    tasks = {}
    for name, table in _load("chain_of_query.toml").items():
        assert isinstance(table, dict)
        tasks[name] = TaskPrompt(
            name=name,
            description=str(table["description"]),
            template=str(table["template"]).strip(),
            answer_labels=tuple(table.get("answer_labels", ())),
            long_form=bool(table.get("long_form", False)),
            interactive=bool(table.get("interactive", True)),
        )
    return tasks


@cache
def _templates() -> dict[str, str]:
    ircot = {f"ircot_{key}": value for key, value in _load("ircot.toml").items()}
    loaded = {**_load("feedback.toml"), "reader": _load("reader.toml")["template"], **ircot}
    return {key: str(value).strip() for key, value in loaded.items()}


def task_names() -> list[str]:
    """Names of the tasks that have a Chain-of-Query prompt."""
    return sorted(_tasks())


def task_prompt(task: str) -> TaskPrompt:
    """Return the prompt of ``task``; an unknown name raises ``ValueError`` naming the known."""
    try:
        return _tasks()[task]
    except KeyError:
        known = ", ".join(task_names())
        raise ValueError(f"unknown task {task!r}: choose one of {known}") from None


def feedback_template(name: str) -> str:
    """Return the message template ``name`` (``verify``, ``complete``, ``trace``, ``reader``)."""
    return _templates()[name]


def render(template: str, **values: object) -> str:
    """Fill ``template``'s placeholders with values that stay data.

    Every delimiter (``<reference>``, ``<answer>``, ``<steps>``, …) is written by the template
    itself; the values (passages, reader answers, questions, the LLM's own earlier text) pass
    through :func:`as_data`, so no value can close a delimiter early and pose as instructions.
    ``str.format`` never re-reads what it inserts, so braces in values are safe too.
    """
    return template.format(**{key: as_data(str(value)) for key, value in values.items()})


# Angle brackets in every form a model may read as one: ASCII, full-width, small, CJK and
# mathematical ones, and HTML entities (named, decimal, hexadecimal, with or without ";").
_OPENING = re.compile(r"[<\uff1c\ufe64\u2329\u3008\u27e8]|&(?:lt|#0*60|#x0*3c);?", re.IGNORECASE)
_CLOSING = re.compile(r"[>\uff1e\ufe65\u232a\u3009\u27e9]|&(?:gt|#0*62|#x0*3e);?", re.IGNORECASE)


def as_data(text: str) -> str:
    """``text`` with nothing a model could read as a tag: every angle bracket becomes ‹ or ›."""
    return _CLOSING.sub("\u203a", _OPENING.sub("\u2039", text))
