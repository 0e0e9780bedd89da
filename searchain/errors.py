"""Refusals that name what to change as settings, worded by whoever shows them.

A library error that says "pass --overwrite" misleads a Python caller, and one that says
``overwrite=True`` misleads someone at the command line. A refusal keeps the setting's name
(``{overwrite}`` in its template) and its facts (``{path}``); ``str()`` words each setting as a
Python caller sets it (:func:`python_words`), and the CLI words it as its flag or command
(:func:`searchain.cli.words.cli_words`). A test holds every setting a refusal names to a flag
the CLI has, or a phrase in both tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

PYTHON: Mapping[str, str] = {
    "analyzer": "analyzer='standard'",
    "auto_cot_build": "searchain.methods.auto_cot.build_auto_cot_demos",
    "calibrate": "searchain.eval.calibrate.calibrate and calibration.save",
    "build": "searchain.tools.retrieval.embedded.build(passages, {path})",
    "calibration": "SEARCHAIN_CALIBRATION",
    "data": "SEARCHAIN_DATA_DIR",
    "dsp_build": "searchain.methods.dsp.bootstrap_dsp_demos",
    "es_build": "ElasticRetriever(ElasticSettings(index={name!r})).build(passages)",
    "es_fields": "ElasticSettings' title_field, text_field and id_field",
    "es_index": "another ElasticSettings index",
    "es_url": "ElasticSettings(url=...) or ES_URL",
    "force": "force=True",
    "format": "fmt='jsonl', 'beir' or 'tsv'",
    "index": "another path",
    "memory": "a smaller memory",
    "overwrite": "overwrite=True",
    "threads": "ThreadStore.threads()",
    "update": "update()",
    "verify": "BM25Index.verify({path})",
    "workers": "fewer workers",
}
"""The settings whose Python wording is a phrase (``{path}``: the refusal's fact). Any other
setting is worded by its name, a parameter of the call (``k``, ``db``, ``method``)."""


def python_words(name: str) -> str:
    """How a Python caller reads the setting ``name``."""
    return PYTHON.get(name, name)


class Worded(Exception):
    """An error whose message names settings, worded for whoever reads it.

    ``template`` is :meth:`str.format` text: each name in ``settings`` is a setting (a key of
    :data:`PYTHON`, or a parameter's name), every other field a fact given as a keyword. Given
    neither, it is the message as it stands (braces and all).
    """

    def __init__(
        self, template: str, /, *, settings: tuple[str, ...] = (), **facts: object
    ) -> None:
        self.template = template
        """The message, settings and facts as ``{name}`` fields."""
        self.settings = settings
        """The settings the message names."""
        self.facts = facts
        """The facts it states (paths, values, counts)."""
        super().__init__(self.worded(python_words))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (a build worker's refusal reaches the CLI still worded by setting)."""
        return _rebuilt, (type(self), self.template, self.settings, self.facts)

    def worded(self, words: Callable[[str], str]) -> str:
        """The message with each setting worded by ``words`` (:func:`python_words`, say)."""
        if not self.settings and not self.facts:  # a plain message: its braces are its own
            return self.template
        facts = _Facts(self.facts)
        named = {name: words(name).format_map(facts) for name in self.settings}
        return self.template.format_map(_Facts({**self.facts, **named}))


class _Facts(dict[str, Any]):
    """A refusal's fields: one it lacks shows as its name in capitals.

    A wording that names ``{path}`` for a refusal given none then reads ``PATH``, rather than
    a KeyError raised in place of the refusal.
    """

    def __missing__(self, key: str) -> str:
        return key.upper()


def _rebuilt(
    kind: type[Worded], template: str, settings: tuple[str, ...], facts: dict[str, object]
) -> Worded:
    return kind(template, settings=settings, **facts)


class SettingError(Worded, ValueError):
    """A value the call cannot honour."""


class TargetExists(Worded, FileExistsError):
    """What the call would write is already there."""


class MissingPart(Worded, ImportError):
    """A package or file the call needs is not installed."""


class NoIndex(Worded, FileNotFoundError):
    """There is no index where the call looks for one."""


class NoSpace(Worded, OSError):
    """The disk cannot hold what the call would write."""


class BuildWorkerDied(Worded, ChildProcessError):
    """A process a build started ended without its work."""
