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
from pathlib import Path

from searchain.text import normalize_answer

__all__ = [
    "CHAIN_STOP",
    "GuidedPrompt",
    "TaskPrompt",
    "feedback_template",
    "guided_prompt",
    "guided_tasks",
    "render",
    "task_names",
    "task_prompt",
]


CHAIN_STOP = ("\n[Question]", "\n[Claim]", "Instruction: Please Stop your generation")
"""A chain's default stop sequences: a model that continues the few-shot list starts a new
``[Question]`` line; the figures tell it to stop after an ``[Unsolved Query]`` with
"Instruction: Please Stop your generation." (Fig. 10)."""


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
    question_suffix: str = ""
    """Appended to the question in the prompt, as the paper's demonstrations end theirs
    ("(SUPPORTS or REFUTES)?")."""
    stop: tuple[str, ...] = CHAIN_STOP
    """Where the LLM's chain ends: a new few-shot ``[Question]`` it starts inventing, and the
    figures' own stop instruction (unless the table says otherwise)."""

    def prompt(self, question: str) -> str:
        """The prompt for ``question`` (its suffix added, unless the question already ends so).

        A demonstration of the same question is left out: Fig. 9's "Telemundo is a
        English-language television network." is a FEVER claim, so asking it must not show its
        own worked answer.
        """
        asked = question.removesuffix(self.question_suffix).strip()
        if self.question_suffix:
            question = f"{asked} {self.question_suffix}"
        return render(_leave_out(self.template, asked, self.question_suffix), question=question)


# A demonstration starts at a [Question] line that a first query follows (Fig. 10 restates its
# question before [Final Content] too: that line starts nothing).
_DEMO = re.compile(r"^\[Question\][ \t]*:[ \t]*(?P<question>.*)\n(?=\[Query 1\])", re.MULTILINE)


def _leave_out(template: str, asked: str, suffix: str) -> str:
    """``template`` without the demonstration(s) whose question is ``asked``."""
    starts = list(_DEMO.finditer(template))
    key = normalize_answer(asked)
    kept, cursor = [], 0
    for i, start in enumerate(starts):
        shown = start.group("question").strip().strip('"').strip()
        if normalize_answer(shown.removesuffix(suffix).strip().strip('"')) == key:
            end = starts[i + 1].start() if i + 1 < len(starts) else len(template)
            kept.append(template[cursor : start.start()])
            cursor = end
    return "".join(kept) + template[cursor:]


def _load(name: str) -> dict[str, object]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


_KEYS = {
    "description",
    "template",
    "same_as",
    "question_suffix",
    "answer_labels",
    "long_form",
    "interactive",
    "stop",
}


def _parse_tasks(
    tables: dict[str, object], where: str, base: dict[str, TaskPrompt]
) -> dict[str, TaskPrompt]:
    """Prompt tables as :class:`TaskPrompt` objects; ``same_as`` may name one of ``base``'s."""
    tasks = dict(base)
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ValueError(f"{where}: [{name}] must be a table (see chain_of_query.toml)")
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise ValueError(f"{where}: [{name}] has unknown keys {unknown}: use {sorted(_KEYS)}")
        template = table.get("template")
        if "same_as" in table:
            source = tasks.get(str(table["same_as"]))
            if source is None:
                raise ValueError(f"{where}: [{name}] same_as names no task {table['same_as']!r}")
            template = source.template
        if not isinstance(template, str) or "{question}" not in template:
            raise ValueError(
                f"{where}: [{name}] needs a template with a {{question}} placeholder (or same_as)"
            )
        stop = table.get("stop", CHAIN_STOP)
        if not isinstance(stop, (list, tuple)) or not all(isinstance(x, str) and x for x in stop):
            raise ValueError(f"{where}: [{name}] stop must be a list of strings (or left out)")
        tasks[name] = TaskPrompt(
            name=name,
            description=str(table.get("description", name)),
            template=template.strip(),
            answer_labels=tuple(table.get("answer_labels", ())),
            long_form=bool(table.get("long_form", False)),
            interactive=bool(table.get("interactive", True)),
            question_suffix=str(table.get("question_suffix", "")),
            stop=tuple(stop),
        )
    return tasks


@cache
def _tasks() -> dict[str, TaskPrompt]:
    return _parse_tasks(_load("chain_of_query.toml"), "chain_of_query.toml", {})


PROMPT_FILE_LIMIT = 1 << 20
"""The most a prompt file may hold (1 MiB): a device or a stray large file is refused, not read
without end."""


@cache
def _user_tasks(path: str) -> dict[str, TaskPrompt]:
    try:
        with Path(path).open("rb") as file:
            raw = file.read(PROMPT_FILE_LIMIT + 1)
    except FileNotFoundError:
        raise ValueError(f"prompt file {path} does not exist") from None
    except OSError as exc:  # a directory, no permission
        raise ValueError(f"cannot read prompt file {path} ({exc.strerror})") from None
    if len(raw) > PROMPT_FILE_LIMIT:
        raise ValueError(f"prompt file {path} is larger than {PROMPT_FILE_LIMIT >> 20} MiB")
    try:
        tables = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"prompt file {path} is not UTF-8 text (a TOML file)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"prompt file {path} is not valid TOML ({exc})") from None
    return _parse_tasks(tables, path, _tasks())


@cache
def _templates() -> dict[str, str]:
    ircot = {f"ircot_{key}": value for key, value in _load("ircot.toml").items()}
    parts = [
        _load("feedback.toml"),
        {"reader": _load("reader.toml")["template"]},
        ircot,
        _load("baselines.toml"),
    ]
    loaded: dict[str, object] = {}
    for part in parts:
        clash = loaded.keys() & part.keys()
        assert not clash, f"prompt names defined twice: {sorted(clash)}"
        loaded.update(part)
    return {key: str(value).strip() for key, value in loaded.items()}


def _all_tasks(prompts: str = "") -> dict[str, TaskPrompt]:
    return _user_tasks(prompts) if prompts else _tasks()


def task_names(prompts: str = "") -> list[str]:
    """Names of the tasks that have a Chain-of-Query prompt (and those of a user's file)."""
    return sorted(_all_tasks(prompts))


def task_prompt(task: str, prompts: str = "") -> TaskPrompt:
    """The prompt of ``task``, from the built-ins or the user's ``prompts`` TOML file.

    A user's file adds tasks and may replace built-in ones by name. An unknown name raises
    ``ValueError`` naming the known.
    """
    try:
        return _all_tasks(prompts)[task]
    except KeyError:
        known = ", ".join(task_names(prompts))
        raise ValueError(f"unknown task {task!r}: choose one of {known}") from None


@dataclass(frozen=True)
class GuidedPrompt:
    """A small local model's Chain-of-Query prompt (``guided.toml``): not the paper's.

    A short instruction such a model can follow, and the grammar llama.cpp holds its reply to, so
    the reply is always a chain the parser reads.
    """

    task: str
    """The task it plans for."""
    template: str
    """Instruction text with a ``{question}`` placeholder."""
    grammar: str
    """GBNF grammar of the reply: sub-questions, their answers and the final content."""

    def prompt(self, question: str) -> str:
        """The prompt for ``question``."""
        return render(self.template, question=question)


@cache
def _guided() -> dict[str, GuidedPrompt]:
    tables = _load("guided.toml")
    guided: dict[str, GuidedPrompt] = {}
    for name, table in tables.items():
        assert isinstance(table, dict), f"guided.toml: [{name}] must be a table"
        source = tables[table["same_as"]] if "same_as" in table else table
        assert isinstance(source, dict) and "{question}" in source["template"], name
        guided[name] = GuidedPrompt(name, source["template"].strip(), source["grammar"].strip())
    return guided


def guided_prompt(task: str) -> GuidedPrompt | None:
    """The guided prompt of built-in ``task``, or ``None`` where it has none (yes/no, ...)."""
    return _guided().get(task)


def guided_tasks() -> list[str]:
    """The tasks that have a guided prompt."""
    return sorted(_guided())


def feedback_template(name: str) -> str:
    """The prompt template called ``name``.

    Feedback (``verify``, ``complete``, ``trace``), ``reader``, IRCoT's (``ircot_*``) and the
    baselines' (``self_ask``, ``react``, ``plan_and_solve``, …).
    """
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
