"""Runtime context: the knobs of one SearChain run, settable per call and from the environment.

Every field can be given per call (``graph.invoke(..., context=Context(r_max=3))``), in LangGraph
Studio's context panel, or through an environment variable named ``SEARCHAIN_`` + the field name
in upper case (``SEARCHAIN_THETA=2.0``). A value passed explicitly wins over the environment.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from functools import cache
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from annotated_types import Interval
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, FiniteFloat, InstanceOf, TypeAdapter, ValidationError
from pydantic.json_schema import SkipJsonSchema

from searchain.prompts import (
    GuidedPrompt,
    TaskPrompt,
    guided_prompt,
    guided_tasks,
    task_names,
    task_prompt,
)
from searchain.tools.verifiers.resolve import resolve_verifier
from searchain.types import Reader, Retriever, Verifier

ENV_PREFIX = "SEARCHAIN_"

MAX_ROUNDS = 10
"""Upper bound accepted for ``r_max``; with ``MAX_CHAIN_NODES`` it bounds the graph's steps."""
MAX_CHAIN_NODES = 30
"""Upper bound accepted for ``max_chain_nodes``."""


def between(low: float, high: float) -> Interval:
    """The bounds of a numeric field, inclusive (checked on construction, shown in Studio)."""
    return Interval(ge=low, le=high)


RunPolicy = Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]]
"""Given a run's own settings and its thread's saved ones, the saved ones the run may start from
(ValueError for a run's setting it may not have). The team server installs its own
(:func:`searchain.server.policy.shared_run_policy`); elsewhere a run starts from all of them."""
_RUN_POLICY: list[RunPolicy] = []


def use_run_policy(policy: RunPolicy | None) -> None:
    """Make ``policy`` the one every later :func:`context_of` applies (``None``: none)."""
    _RUN_POLICY[:] = [policy] if policy else []


@dataclass(kw_only=True)
class Context:
    """How SearChain runs: thresholds, budgets, and which models and index it uses.

    The fields come in sections (the comments below); they stay one flat dataclass so that each
    is one ``SEARCHAIN_*`` variable, one field of Studio's context panel and one keyword here.
    """

    # Lets Studio show each field's docstring as its description.
    __pydantic_config__ = ConfigDict(use_attribute_docstrings=True)

    # The question's task and the chain's prompt.
    task: str = "qa"
    """Default prompt family when the input names none: qa, yesno, factcheck, slot, longform,
    no_ir."""
    prompts: str = ""
    """A TOML file of the user's own task prompts (format: ``prompts/chain_of_query.toml``);
    its tasks are selected by name with ``task``, beside the built-in ones."""
    chain_prompt: Literal["auto", "paper", "guided"] = "auto"
    """How the LLM is asked for its chain: ``paper`` sends the task's prompt as published,
    unconstrained; ``guided`` a short instruction with the reply held to the Chain-of-Query
    grammar (``prompts/guided.toml``: a llama.cpp model only; the paper's few-shot prompt leaves
    SmolLM2 without a readable chain for some questions); ``auto`` guides a llama.cpp model
    (``local``, ``gguf:PATH``) on a task that has a guided prompt and no prompt file of the
    user's, and sends the paper's prompt otherwise."""

    # Models.
    llm: str | SkipJsonSchema[InstanceOf[BaseChatModel]] = "auto"
    """Chat model: ``auto`` (OpenAI's gpt-4o-mini when OPENAI_API_KEY is set, else ``local``),
    ``local`` (SmolLM2-135M-Instruct, offline), ``provider:model``, or a chat model object."""
    reader: str | SkipJsonSchema[InstanceOf[Reader]] = "auto"
    """Reader: ``auto`` (``dpr``, the paper's, where the ``models`` extra and its weights are
    installed, else ``llm``), ``dpr``, ``extractive``, ``llm``, a model path, or an object."""
    verifier: str | SkipJsonSchema[InstanceOf[Verifier]] = "lexical"
    """Who judges whether a passage states a step (the verdict on its citations): ``lexical``
    (containment on word boundaries, offline; yes/no and numbers stay unverifiable) or
    ``nli:MODEL`` (a sequence-classification NLI model's hub name or directory)."""
    semantic_dedup: bool = False
    """Also compare sub-queries by sentence embeddings (all-MiniLM-L6-v2), not only by text."""

    # Retrieval: the embedded index or Elasticsearch.
    retriever: (
        str | SkipJsonSchema[InstanceOf[Retriever]] | SkipJsonSchema[InstanceOf[BaseRetriever]]
    ) = "bm25"
    """Retrieval backend: ``bm25`` (the embedded index at ``index``), ``elasticsearch`` (the
    index ``es_index`` at ``es_url``), or a retriever object."""
    index: str = "searchain-index"
    """Directory of the embedded BM25 index."""
    es_url: str = ""
    """Elasticsearch URL; empty reads ``ES_URL``, then http://localhost:9200."""
    es_index: str = "searchain"
    """Elasticsearch index (alias) name."""
    es_title_field: str = "title"
    """Elasticsearch: the field holding a passage's title (empty for none); for indexes
    searchain did not build."""
    es_text_field: str = "text"
    """Elasticsearch: the field holding a passage's text."""
    es_id_field: str = "_id"
    """Elasticsearch: where a passage's id comes from, the document ``_id`` or a field."""

    # SearChain: thresholds, budgets and the ablations' switches.
    theta: FiniteFloat | None = None
    """Confidence threshold θ for Verify; ``None`` uses the reader's own default (1.5 for DPR)."""
    alpha: Annotated[float, between(0, 1)] = 0.35
    """ROUGE-L threshold α below which a long-form answer disagrees with its passage."""
    r_max: Annotated[int, between(1, MAX_ROUNDS)] = 5
    """Maximum number of chains (rounds of LLM generation) per question."""
    max_chain_nodes: Annotated[int, between(1, MAX_CHAIN_NODES)] = 12
    """Nodes read from one chain; longer chains are cut (the cut is recorded)."""
    dedup_threshold: Annotated[float, between(0, 1)] = 0.9
    """Cosine similarity above which two sub-queries count as the same (semantic dedup)."""
    verify: bool = True
    """Let a confident reader correct an answered node; ``False`` is the "SearChain without
    verification" ablation (IR still supplies the passages Trace cites)."""
    complete: bool = True
    """Let IR answer an ``[Unsolved Query]``; ``False`` is the "SearChain without completion"
    ablation: the LLM is told to answer the query from its own knowledge instead."""
    parallel_traversal: bool = True
    """Retrieve and read all of a new chain's nodes in one batch (concurrent reader calls)
    before walking it; the walk and its result are the same as one node at a time, which
    ``False`` restores to spare the reader calls past a correction."""
    approve_corrections: bool = False
    """Pause before each IR correction (``interrupt``) until a human approves or rejects it;
    needs a checkpointer."""

    # The baselines (IRCoT and the papers' others).
    ircot_k: Annotated[int, between(0, 50)] = 4
    """IRCoT: paragraphs retrieved per step (K); 0 retrieves nothing (the Direct and CoT
    baselines, IRCoT's "NoR")."""
    ircot_max_steps: Annotated[int, between(0, 50)] = 8
    """IRCoT: reasoning sentences before the answer step is forced; 0 answers right after the
    first retrieval (the one-step retrieval baseline, "OneR")."""
    ircot_max_paragraphs: Annotated[int, between(1, 50)] = 15
    """IRCoT: cap on the paragraphs collected (15 in the paper)."""
    ircot_answer: Literal["direct", "cot"] = "direct"
    """IRCoT's answer step: ``direct`` (answer only) or ``cot`` (reason, then answer)."""
    oner_k: Annotated[int, between(1, 50)] = 15
    """OneR: paragraphs retrieved by its one retrieval with the question (IRCoT's paper searches
    a larger K for OneR than for IRCoT: 5-15 against 2-8)."""
    ircot_demos: str = "musique"
    """IRCoT and the baselines: few-shot demonstrations, a shipped set (``musique``,
    ``hotpotqa``, ``2wikimultihopqa``, from each data set's tuning split; ``paper-musique``,
    ``paper-hotpotqa``, ``paper-2wikimultihopqa``, ``paper-iirc``, IRCoT's published ones), a
    JSON file of the same shape, or ``""`` for none."""
    ircot_prompt_tokens: Annotated[int, between(200, 100_000)] = 3000
    """Token budget of an IRCoT prompt: as many demonstrations as fit beside the instance."""
    sc_samples: Annotated[int, between(1, 50)] = 5
    """CoT-SC and Verify-and-Edit: chains of thought sampled per question (the papers sample
    up to 40; 5 keeps a CPU run short)."""
    auto_cot_demos: str = ""
    """Auto-CoT: a JSON file of its demonstrations (``[{question, rationale, answer}]``), built
    from a data set's tuning questions by :func:`searchain.methods.auto_cot.build_auto_cot_demos`
    (``searchain eval`` builds and caches them); empty: Auto-CoT refuses to run."""
    dsp_demos: str = ""
    """DSP: a JSON file of its bootstrapped demonstrations, built from a data set's tuning
    questions by :func:`searchain.methods.dsp.bootstrap_dsp_demos` (``searchain eval``
    builds and caches them); empty: bare question/answer pairs of ``ircot_demos`` only."""
    dsp_bootstrap: Annotated[int, between(0, 100)] = 24
    """DSP's Demonstrate: tuning questions its program runs on at most when ``searchain eval``
    bootstraps its demonstrations (three LLM calls each)."""
    tot_samples: Annotated[int, between(1, 50)] = 3
    """Tree-of-Thought: next sentences sampled from each kept chain at every step."""
    tot_breadth: Annotated[int, between(1, 50)] = 2
    """Tree-of-Thought: chains kept after each step (the breadth of its breadth-first search)."""

    # Files sent in a thread's messages, and their bounds.
    uploads_searched: Literal["together", "alone"] = "together"
    """Where the files sent in a thread's messages are searched: ``together`` with the index
    (the two rankings fused rank by rank, the files' first), or ``alone`` (the files only)."""
    upload_max_mib: Annotated[int, between(1, 1024)] = 20
    """Size a file sent in a message may have, in MiB (a deployment's bound)."""
    upload_max_pages: Annotated[int, between(1, 100_000)] = 500
    """Pages a PDF sent in a message may have (a deployment's bound)."""
    uploads_per_thread: Annotated[int, between(0, 10_000)] = 20
    """Files a thread may hold (a deployment's bound; 0 reads none)."""
    uploads_per_user: Annotated[int, between(0, 1_000_000)] = 200
    """Files a user's threads may hold together on the team server, until the threads are
    deleted (a deployment's bound; 0 reads none)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            env = os.environ.get(ENV_PREFIX + f.name.upper())
            if env is not None and getattr(self, f.name) == f.default and f.default is not MISSING:
                setattr(self, f.name, _coerce(f.name, env, f.default))
                try:
                    check_field(f.name, getattr(self, f.name))
                except ValueError as exc:
                    raise ValueError(f"{ENV_PREFIX}{f.name.upper()}: {exc}") from None
            else:
                check_field(f.name, getattr(self, f.name))
        if not self.prompts and self.task not in task_names():
            raise ValueError(f"unknown task {self.task!r}: choose one of {', '.join(task_names())}")

    def task_prompt(self, task: str | None = None) -> TaskPrompt:
        """The prompt of ``task`` (a question's own) or this context's, user files included.

        A user's prompt file is read here, on first use, never when the context is built: a
        context opens no file and reaches no URL (its construction runs in a server's event loop).
        """
        return task_prompt(task or self.task, self.prompts)

    def guided_prompt(self, task: str | None, llm: Any) -> GuidedPrompt | None:
        """The guided prompt ``task``'s chains are asked with on ``llm`` (``None``: the task's own).

        See ``chain_prompt``; ValueError where ``guided`` cannot be honoured.
        """
        task = task or self.task
        if self.chain_prompt == "paper":
            return None
        guided = guided_prompt(task)
        constrains = hasattr(llm, "grammar_settings")
        if self.chain_prompt == "auto":
            return guided if constrains and not self.prompts else None
        if not constrains:
            raise ValueError(
                "chain_prompt guided holds the reply to a grammar, which only a llama.cpp model "
                "takes (llm local or gguf:PATH): use chain_prompt auto or paper"
            )
        if guided is None:
            raise ValueError(
                f"task {task!r} has no guided prompt (only {', '.join(guided_tasks())}): use "
                "chain_prompt auto or paper"
            )
        return guided


STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)
"""Settings are taken as they are typed: ``"false"`` is not a bool, ``2.5`` not an int."""


@cache
def _checkers() -> dict[str, TypeAdapter[Any]]:
    """A strict validator per field, from its annotation (type and bounds)."""
    hints = get_type_hints(Context, include_extras=True)
    return {f.name: TypeAdapter(hints[f.name], config=STRICT) for f in fields(Context)}


def check_field(name: str, value: Any) -> None:
    """ValueError, in one line, when ``value`` is not of field ``name``'s type or bounds."""
    try:
        _checkers()[name].validate_python(value)
    except ValidationError as exc:
        raise ValueError(_problem(name, value, exc.errors()[0]["type"])) from None


def _problem(name: str, value: Any, error: str) -> str:
    """What is wrong with ``value`` for field ``name``, given pydantic's error type."""
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if error in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        low, high = bounds(name)
        return f"{name} must be between {low} and {high}, got {shown}"
    if error == "finite_number":
        return f"{name} must be a finite number (or unset), got {shown}"
    return f"{name} must be {kind(name)}, got {shown} ({type(value).__name__})"


def bounds(name: str) -> tuple[Any, Any]:
    """The inclusive bounds of a numeric field, as its annotation declares them."""
    hint = get_type_hints(Context, include_extras=True)[name]
    interval = next(m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Interval))
    return interval.ge, interval.le


def kind(name: str) -> str:
    """A field's type in words, for a refusal."""
    default = next(f.default for f in fields(Context) if f.name == name)
    hint = get_type_hints(Context, include_extras=True)[name]
    choices = get_args(hint) if get_origin(hint) is Literal else ()
    if choices:
        return " or ".join(map(str, choices))
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "a whole number"
    if isinstance(default, float):
        return "a number"
    if default is None:
        return "a number or null"
    if get_origin(hint) not in (Union, UnionType):
        return "a string"
    objects = [get_args(arg)[0].__name__ for arg in get_args(hint) if arg is not str]
    return f"a spec string or a {' or '.join(objects)} object"


def _coerce(name: str, raw: str, default: Any) -> Any:
    """Parse an environment value with the type of the field's default."""
    try:
        if isinstance(default, bool):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float) or default is None:
            return float(raw)
    except ValueError:
        wanted = "true/false" if isinstance(default, bool) else type(default or 0.0).__name__
        raise ValueError(f"{ENV_PREFIX}{name.upper()}={raw!r} is not a valid {wanted}") from None
    return raw


def _set_fields(ctx: Context) -> dict[str, Any]:
    """The fields of ``ctx`` that differ from the defaults (the environment's included)."""
    defaults = Context()
    return {
        f.name: getattr(ctx, f.name)
        for f in fields(Context)
        if getattr(ctx, f.name) != getattr(defaults, f.name)
    }


def context_of(runtime: Any, saved: Mapping[str, Any] | None = None) -> Context:
    """The run's context: the fields the caller set, over the settings its thread started with.

    A run on a thread need not repeat its context: a LangGraph server run resumed with only a
    ``Command`` (an approval), or a follow-up sent without context, keeps the models, index and
    switches the thread was started with (``saved``, kept in state by :func:`thread_settings`)
    instead of silently falling back to the defaults. A field the caller sets to something other
    than its default wins. A thread started with an object (a chat model, a retriever) cannot
    have it saved, so a run without it fails in one line. The installed :data:`RunPolicy`, if
    any, says which of ``saved`` a run may start from.
    """
    given = runtime.context if isinstance(runtime.context, Context) else Context()
    explicit = _set_fields(given)
    for policy in _RUN_POLICY:
        saved = policy(explicit, saved or {})
    if not saved:
        return given
    for name, value in saved.items():
        if isinstance(value, dict) and name not in explicit:
            raise ValueError(
                f"this thread was started with a {value.get('object', 'Python')} object as "
                f"{name!r}, which cannot be saved: pass it in this run's context again"
            )
    merged = {k: v for k, v in saved.items() if not isinstance(v, dict)}
    return Context(**{**merged, **explicit})


def thread_settings(ctx: Context) -> dict[str, Any]:
    """What a thread remembers of its context: the fields that differ from the defaults.

    Plain values are kept as they are; an object (a chat model, a retriever, a reader) is kept as
    ``{"object": class name}``, a marker that a later run must pass it again.
    """
    return _marked(_set_fields(ctx))


def run_settings(ctx: Context) -> dict[str, Any]:
    """Every field of ``ctx`` that differs from its declared default, the environment's included.

    What a run must be given again in another shell, whose ``SEARCHAIN_*`` may differ (the CLI's
    resume); objects marked as :func:`thread_settings` marks them.
    """
    return _marked(
        {f.name: getattr(ctx, f.name) for f in fields(Context) if getattr(ctx, f.name) != f.default}
    )


def _marked(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with each object (a chat model, a retriever) as ``{"object": class name}``."""
    return {
        name: value
        if value is None or isinstance(value, str | int | float | bool)
        else {"object": type(value).__name__}
        for name, value in settings.items()
    }


def context_verifier(ctx: Context) -> Verifier:
    """The verifier a run's context names (``lexical`` unless set)."""
    return resolve_verifier(ctx.verifier)
