"""What a method is: its graph, the settings it overrides, its facts, and what it prepares.

A method is declared in one module of this package (its family's) and listed once in
:data:`searchain.methods.REGISTRY`; whatever runs methods (``searchain eval``, the reports,
``scripts/run_table1.sh``) reads them from there and knows none of them by name.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from searchain.cache import load_once
from searchain.context import Context
from searchain.files import write_atomic

if TYPE_CHECKING:
    from searchain.questions.record import Record


@dataclass(frozen=True)
class Setup:
    """What a method's :attr:`Method.prepare` is given: the run's parts, resolved and loaded."""

    llm: Any
    """The LLM the run answers with."""
    retriever: Any
    """The run's retriever."""
    reader: Any
    """The reader as the run asks for it (a name, or a model already made)."""
    verifier: str
    """The verifier's name (``--verifier``)."""
    dataset: str
    """The data set's name: what demonstrations are made of."""
    demos: str
    """``tuning`` (demonstrations from the data set's tuning split) or ``paper`` (IRCoT's)."""
    k: int | None
    """Paragraphs a retrieval (``--k``); None keeps the method's own."""
    model: str
    """The resolved model's identity: what a cached build is keyed on."""
    cache: Path
    """Where things built for a run are kept."""
    tuning: Callable[[], list[Record]]
    """The data set's tuning questions (read when called)."""

    def cached(self, kind: str, build: Callable[[], list[dict[str, Any]]], *key: Any) -> Path:
        """A file of ``kind`` for this data set, model and ``key``, built unless it is there.

        ``build`` makes its content; the file is written whole or not at all. Keyed on the model
        that ran, never on a name alone, so ``auto`` on two machines, or a GGUF file changed in
        place, never shares a cached build.
        """
        text = " ".join(str(part) for part in (self.model, *key))
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        path = self.cache / kind / f"{self.dataset}-{digest}.json"
        if not path.is_file():
            write_atomic(path, json.dumps(build(), ensure_ascii=False, indent=1) + "\n")
        return path


def no_preparation(method: Method, setup: Setup) -> dict[str, Any]:
    """Nothing to prepare: the method runs on the LLM and retriever alone."""
    return {}


@dataclass(frozen=True)
class Method:
    """A runnable method: which graph, which context settings it overrides, what it prepares."""

    name: str
    """The name used by ``searchain eval --method`` and in results files."""
    build: str
    """Its graph's builder, ``module:function`` (imported when the graph is first needed)."""
    description: str
    """One line for ``--help``, docs and reports."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Context fields it sets, over the caller's."""
    task: str | None = None
    """Prompt family forced for every question (``no_ir``); ``None`` keeps the question's own."""
    k_field: str | None = "ircot_k"
    """The context field ``searchain eval --k`` sets (paragraphs per retrieval); ``None`` for
    methods that retrieve nothing or always the top 1 (SearChain, ReAct's Search)."""
    uses_ir: bool = True
    """Whether the method retrieves (Table 1's "with IR" half)."""
    table1: bool = True
    """Whether it is a row of SearChain's Table 1 (IRCoT and plain ReAct are not)."""
    tree: bool = False
    """Whether it answers as SearChain does, with a Tree-of-Reasoning whose nodes cite
    passages: what the simulated LLM plays, ``--verifier`` checks and ALCE scores. The others
    answer as IRCoT does."""
    prepare: Callable[[Method, Setup], dict[str, Any]] = no_preparation
    """What it needs before its first question, as context fields (demonstrations built from
    the tuning split, models loaded): called once a run."""

    @property
    def reads(self) -> bool:
        """Whether it reads passages with a reader model (SearChain with IR)."""
        return self.tree and self.uses_ir

    def context(self, **fields: Any) -> Context:
        """The run's context: the caller's ``fields`` with this method's settings on top."""
        return Context(**{**fields, **self.settings})

    def compiled(self) -> Any:
        """The method's compiled graph, built once per process."""
        module, _, function = self.build.partition(":")
        return load_once(("graph", self.build), getattr(importlib.import_module(module), function))
