"""Everything an evaluation run needs before its first question: checked, built, loaded.

In stages, each a function: the run checked (:func:`check`), its models made (:func:`models`:
the simulated ones are made here and nowhere else), its retriever opened, the method prepared
(its own :attr:`~searchain.methods.Method.prepare`: demonstrations built, models loaded), and its
context built (:func:`eval_context`). Nothing here knows a method by name. Bad input (unknown
names, a data set a method or the simulated models cannot serve, a missing index or server)
fails in one line, before any question is answered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from searchain.context import Context
from searchain.errors import SettingError
from searchain.eval.datasets import load_records, pooled_corpus, records
from searchain.eval.runner import SIMULATED, EvalSpec
from searchain.methods import METHODS, Setup, get_method
from searchain.prompts.ircot import SHIPPED
from searchain.questions.record import Record
from searchain.tools.retrieval import embedded
from searchain.tools.verifiers.resolve import resolve_verifier

Stage = Callable[[str], None]
"""Where a long step says what it does (the CLI prints it)."""


def check(spec: EvalSpec) -> None:
    """Reject a spec no run could honour, naming the fix."""
    method = get_method(spec.method)
    if spec.split not in ("tune", "report"):
        raise ValueError(f"unknown split {spec.split!r}: use tune or report")
    if spec.backend not in ("embedded", "elasticsearch"):
        raise ValueError(f"unknown backend {spec.backend!r}: use embedded or elasticsearch")
    if spec.llm == SIMULATED and not method.tree:
        plays = ", ".join(name for name, m in METHODS.items() if m.tree)
        raise SettingError(
            "the simulated LLM writes SearChain's Chains-of-Query only, so {name} would "
            "score its fallbacks: use {method} {plays}, or a real {llm}",
            settings=("method", "llm"),
            name=spec.method,
            plays=plays,
        )
    if spec.simulated and spec.dataset != "musique":
        raise SettingError(
            "the simulated LLM and reader answer from MuSiQue's gold decompositions: "
            "use {dataset} musique",
            settings=("dataset",),
        )
    if spec.llm != SIMULATED and (spec.p is not None or spec.u is not None):
        raise SettingError(
            "{p} and {u} set the simulated LLM: pass {llm} simulated", settings=("p", "u", "llm")
        )
    for name in ("p", "u"):
        value = getattr(spec, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise SettingError(
                "{" + name + "} is a probability: give a value from 0 to 1, got {value}",
                settings=(name,),
                value=value,
            )
    if spec.demos not in ("tuning", "paper"):
        raise ValueError(f"unknown demonstrations {spec.demos!r}: use tuning or paper")
    if spec.demos == "paper" and f"paper-{spec.dataset}" not in SHIPPED:
        raise SettingError(
            "IRCoT published no demonstrations for {name}: use {demos} tuning",
            settings=("demos",),
            name=spec.dataset,
        )
    if spec.k is not None and method.k_field is None:
        raise SettingError(
            "{name} takes no {k} (it retrieves nothing, or always the top 1)",
            settings=("k",),
            name=spec.method,
        )
    if spec.k is not None and not 1 <= spec.k <= 50:
        raise SettingError(
            "{k} must be between 1 and 50, got {value}", settings=("k",), value=spec.k
        )
    if spec.verifier != "lexical" and not method.tree:
        raise SettingError(
            "{name} cites nothing, so there is nothing to verify: drop {verifier}, or run a "
            "searchain method",
            settings=("verifier",),
            name=spec.method,
        )
    resolve_verifier(spec.verifier)  # an unknown verifier fails here, before anything loads
    if method.task == "no_ir" and spec.dataset not in ("musique", "hotpotqa", "2wikimultihopqa"):
        raise ValueError(
            f"{spec.method} has the paper's question-answering prompt only (Fig. 8): use "
            "musique, hotpotqa or 2wikimultihopqa"
        )


def eval_records(root: Path, spec: EvalSpec, limit: int | None = None) -> list[Record]:
    """The questions of the run: the split, its first ``limit`` when given."""
    if limit is not None and limit < 1:
        raise SettingError(
            "{limit} must be at least 1, got {value}", settings=("limit",), value=limit
        )
    return load_records(root, spec.dataset, spec.split)[:limit]  # type: ignore[arg-type]


def pooled_index(root: Path, path: Path, stage: Stage | None = None) -> Any:
    """The embedded BM25 index of the pooled corpus at ``path``, built there on first use."""
    from searchain.tools.retrieval.embedded.index import BM25Index

    if not path.exists():
        corpus = pooled_corpus(root)
        if stage:
            stage(f"building the pooled corpus's index at {path} ({len(corpus):,} passages; once)")
        embedded.build(corpus, path, stage=stage)
    return BM25Index.load(path)


def elastic_index(root: Path, url: str, index: str, stage: Stage | None = None) -> Any:
    """The Elasticsearch index of the pooled corpus, built on first use."""
    from searchain.tools.retrieval.elastic.retriever import ElasticRetriever, ElasticSettings

    retriever = ElasticRetriever(ElasticSettings(url=url, index=index))
    if not retriever.exists():
        corpus = pooled_corpus(root)
        if stage:
            stage(f"building the pooled corpus's index {index} ({len(corpus):,} passages; once)")
        retriever.build(corpus)
    return retriever


def models(root: Path, spec: EvalSpec) -> tuple[Any, Any]:
    """The run's LLM, resolved, and its reader as asked for: the simulated ones made here.

    The simulated LLM and reader answer from MuSiQue's gold decompositions of the run's split.
    """
    from searchain.tools.llms.resolve import resolve_llm

    llm: Any = spec.llm
    reader: Any = spec.reader
    if spec.simulated:
        from searchain.eval.simulated import SimulatedLLM, SimulatedReader

        pairs = list(
            zip(
                load_records(root, "musique", spec.split),  # type: ignore[arg-type]
                records(root, "musique", spec.split),  # type: ignore[arg-type]
                strict=True,
            )
        )
        if spec.llm == SIMULATED:
            llm = SimulatedLLM.for_records(
                pairs, p=spec.p or 0.0, u=spec.u or 0.0, seed=spec.seed or 0
            )
        if spec.reader == SIMULATED:
            reader = SimulatedReader(pairs)
    return resolve_llm(llm), reader


def eval_context(
    root: Path,
    spec: EvalSpec,
    *,
    index: Path,
    es_url: str = "",
    es_index: str = "searchain-eval",
    stage: Stage | None = None,
) -> Context:
    """The run's context with every component built and loaded (the simulated ones included).

    The embedded index at ``index`` (the CLI's ``--index``) is built from the pooled corpus
    if absent; what the method builds before its first question is kept beside it.
    """
    check(spec)
    llm, reader = models(root, spec)
    if spec.backend == "embedded":
        retriever = pooled_index(root, index, stage)
    else:
        retriever = elastic_index(root, es_url, es_index, stage)
    method = get_method(spec.method)
    setup = Setup(
        llm=llm,
        retriever=retriever,
        reader=reader,
        verifier=spec.verifier,
        dataset=spec.dataset,
        demos=spec.demos,
        k=spec.k,
        model=spec.model or spec.llm,
        cache=index.parent,
        tuning=lambda: load_records(root, spec.dataset, "tune"),  # type: ignore[arg-type]
    )
    return method.context(llm=llm, retriever=retriever, **method.prepare(method, setup))
