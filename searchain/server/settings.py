"""A caller's settings, parsed once into one strict type; the deployment's, read once at start.

On the team server a request may carry run settings in several places: a run's ``context`` and
``config.configurable``, an assistant's (made or updated), a thread's state (its ``settings``,
which later runs on the thread start from, written by a state update or a run's ``command``) and,
in the Agent Protocol's v2 commands, ``params``.
Every carrier of every request is parsed by :meth:`CallerSettings.parse` before the server acts
on it: a closed set of fields (the context's fields that are not the deployment's), each of the
type and within the bounds :class:`searchain.context.Context` declares, taken strictly (``"false"``
is not a bool, ``2.5`` not an int); anything else is refused in one line naming the field.

The deployment's settings (models, files, indexes, URLs, and the defaults of the rest) are the
server's environment (``SEARCHAIN_*``), read once by :func:`deployment` when a worker starts,
which is also when the deployment's own prompt file is read: a request is never the reason a
file is opened or a URL reached.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from functools import cache
from types import MappingProxyType
from typing import Any

from searchain.context import Context, check_field
from searchain.prompts import task_names
from searchain.server.policy import DEPLOYMENT_FIELDS, refuse_deployment_fields

CALLER_FIELDS = frozenset(f.name for f in fields(Context)) - DEPLOYMENT_FIELDS
"""What a caller may set: the task, thresholds, budgets and switches."""

LANGGRAPH_KEYS = frozenset(
    {"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "run_id", "task_id"}
)
"""LangGraph's own keys that a client's ``configurable`` carries beside settings (RemoteGraph
passes its parent's): not settings, and dropped from a run's request (the server sets the
thread and run itself), since the server reads an otherwise empty context from
``configurable``."""


@dataclass(frozen=True)
class Deployment:
    """The deployment's settings, read from the server's environment once, when a worker starts."""

    context: Context
    """The environment's context: the deployment's models, files, indexes and URLs, and the
    defaults of the caller's settings."""
    tasks: frozenset[str]
    """The tasks a caller may name: the built-in ones and those of the deployment's prompt
    file (read here, at start)."""


@cache
def deployment() -> Deployment:
    """The deployment's settings, read once per process; ValueError in one line if broken.

    Cached for the process's life (not in :mod:`searchain.cache`, whose bound may drop an
    entry and would then have a request read the prompt file again).
    """
    context = Context()
    return Deployment(context, frozenset(task_names(context.prompts)))


@dataclass(frozen=True)
class CallerSettings:
    """The settings one carrier of one request holds, every field checked."""

    values: Mapping[str, Any]
    """Field name to value, each a field of :data:`CALLER_FIELDS` (or ``llm`` naming a model the
    deployment offers) of its declared type, within its bounds."""

    @classmethod
    def parse(cls, settings: object, where: str) -> CallerSettings:
        """``settings`` (from ``where`` in a request) checked, or ValueError in one line."""
        if settings is None:
            return cls(MappingProxyType({}))
        if not isinstance(settings, Mapping):
            raise ValueError(
                f"{where} must be an object of settings, got {type(settings).__name__}"
            )
        if not all(isinstance(name, str) for name in settings):
            raise ValueError(f"{where}: setting names must be strings")
        refuse_deployment_fields(settings)
        if unknown := sorted(set(settings) - CALLER_FIELDS - {"llm"}):
            named = ", ".join(unknown)
            raise ValueError(f"{where}: unknown setting{'s' * (len(unknown) > 1)} {named}")
        for name, value in settings.items():
            check_field(name, value)
        tasks = deployment().tasks
        if "task" in settings and settings["task"] not in tasks:
            raise ValueError(
                f"unknown task {settings['task']!r}: choose one of {', '.join(sorted(tasks))}"
            )
        return cls(MappingProxyType(dict(settings)))


def carriers(value: object) -> Iterator[tuple[str, object]]:
    """Every place a request's body carries settings: ``(where, what it holds there)``.

    ``configurable`` also holds LangGraph's own keys (:data:`LANGGRAPH_KEYS`), which are not
    settings; a thread-state update's ``values`` (an object, or a list of them) and a run's
    ``command.update`` (an object, or a list of pairs) may write the thread's ``settings``; a v2
    command carries its run's ``context`` and ``config`` in ``params``.
    """
    if not isinstance(value, Mapping):
        return
    for prefix, body in (("", value), ("params.", value.get("params"))):
        if not isinstance(body, Mapping):
            continue
        if "context" in body:
            yield f"{prefix}context", body["context"]
        config = body.get("config")
        if config is not None and not isinstance(config, Mapping):
            yield f"{prefix}config", config
        elif config is not None and "configurable" in config:
            yield f"{prefix}config.configurable", settings_of(config["configurable"])
    updates = value.get("values")
    for update in updates if isinstance(updates, list) else [updates]:
        if isinstance(update, Mapping) and "settings" in update:
            yield "values.settings", update["settings"]
    command = value.get("command")
    update = command.get("update") if isinstance(command, Mapping) else None
    if isinstance(update, Mapping) and "settings" in update:
        yield "command.update.settings", update["settings"]
    elif isinstance(update, list):  # [[key, value], ...]
        for pair in update:
            if isinstance(pair, list | tuple) and len(pair) == 2 and pair[0] == "settings":
                yield "command.update.settings", pair[1]


def settings_of(configurable: object) -> object:
    """The settings in a ``configurable``: everything but LangGraph's own keys."""
    if not isinstance(configurable, Mapping):
        return configurable
    return {k: v for k, v in configurable.items() if k not in LANGGRAPH_KEYS}


def parse_request(value: object) -> dict[str, Any]:
    """Every carrier of a request parsed; their settings merged, or ValueError in one line."""
    merged: dict[str, Any] = {}
    for where, settings in carriers(value):
        merged |= CallerSettings.parse(settings, where).values
    return merged
