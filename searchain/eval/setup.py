"""Everything an evaluation run needs before its first question: checked, built, loaded.

Bad input (unknown names, a data set a method or the simulated models cannot serve, a missing
index or server) fails here in one line, before any question is answered.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from searchain.context import Context
from searchain.eval.datasets import Record, load_records, pooled_corpus, records
from searchain.eval.runner import SIMULATED, EvalSpec
from searchain.files import write_atomic
from searchain.methods import METHODS, get_method
from searchain.prompts.ircot import SHIPPED
from searchain.tools.verifiers.resolve import resolve_verifier


def check(spec: EvalSpec) -> None:
    """Reject a spec no run could honour, naming the fix."""
    method = get_method(spec.method)
    if spec.split not in ("tune", "report"):
        raise ValueError(f"unknown split {spec.split!r}: use tune or report")
    if spec.backend not in ("embedded", "elasticsearch"):
        raise ValueError(f"unknown backend {spec.backend!r}: use embedded or elasticsearch")
    if spec.llm == SIMULATED and method.graph != "searchain":
        plays = ", ".join(name for name, m in METHODS.items() if m.graph == "searchain")
        raise ValueError(
            f"the simulated LLM writes SearChain's Chains-of-Query only, so {spec.method} would "
            f"score its fallbacks: use --method {plays}, or a real --llm"
        )
    if spec.simulated and spec.dataset != "musique":
        raise ValueError(
            "the simulated LLM and reader answer from MuSiQue's gold decompositions: "
            "use --dataset musique"
        )
    if spec.llm != SIMULATED and (spec.p is not None or spec.u is not None):
        raise ValueError("--p and --u set the simulated LLM: pass --llm simulated")
    for name in ("p", "u"):
        value = getattr(spec, name)
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"--{name} is a probability: give a value from 0 to 1, got {value}")
    if spec.demos not in ("tuning", "paper"):
        raise ValueError(f"unknown demonstrations {spec.demos!r}: use tuning or paper")
    if spec.demos == "paper" and f"paper-{spec.dataset}" not in SHIPPED:
        raise ValueError(
            f"IRCoT published no demonstrations for {spec.dataset}: use --demos tuning"
        )
    if spec.k is not None and method.k_field is None:
        raise ValueError(f"{spec.method} takes no --k (it retrieves nothing, or always the top 1)")
    if spec.k is not None and not 1 <= spec.k <= 50:
        raise ValueError(f"--k must be between 1 and 50, got {spec.k}")
    if spec.verifier != "lexical" and method.graph != "searchain":
        raise ValueError(
            f"{spec.method} cites nothing, so there is nothing to verify: drop --verifier, or "
            "run a searchain method"
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
        raise ValueError(f"--limit must be at least 1, got {limit}")
    return load_records(root, spec.dataset, spec.split)[:limit]  # type: ignore[arg-type]


def pooled_index(root: Path, path: Path) -> Any:
    """The embedded BM25 index of the pooled corpus at ``path``, built there on first use."""
    from searchain.tools.retrieval.bm25 import BM25Index

    if not path.exists():
        BM25Index.build(pooled_corpus(root), path)
    return BM25Index.load(path)


def elastic_index(root: Path, url: str, index: str) -> Any:
    """The Elasticsearch index of the pooled corpus, built on first use."""
    from searchain.tools.retrieval.elastic import ElasticRetriever, ElasticSettings

    retriever = ElasticRetriever(ElasticSettings(url=url, index=index))
    if not retriever.exists():
        retriever.build(pooled_corpus(root))
    return retriever


def cache_file(cache: Path, kind: str, spec: EvalSpec, *parts: Any) -> Path:
    """Where something built for the run's data set and resolved model is kept.

    Keyed on the model that ran (:attr:`EvalSpec.model`), never on the spec alone, so ``auto``
    on two machines, or a GGUF file changed in place, never shares a cached build.
    """
    key = " ".join(str(part) for part in (spec.model or spec.llm, *parts))
    return cache / kind / f"{spec.dataset}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.json"


def auto_cot_demos(root: Path, spec: EvalSpec, llm: Any, cache: Path) -> Path:
    """Auto-CoT's demonstrations for the run, built once and kept in ``cache``.

    They come from the data set's tuning questions and the run's LLM (a file per data set and
    resolved model), so a rerun or another split reuses them.
    """
    from searchain.eval.auto_cot import VERSION, build_auto_cot_demos

    path = cache_file(cache, "auto-cot", spec, VERSION)
    questions = [r.question for r in load_records(root, spec.dataset, "tune")]  # type: ignore[arg-type]
    return cached_demos(path, lambda: build_auto_cot_demos(questions, llm))


def dsp_demos(root: Path, spec: EvalSpec, bare: Context, llm: Any, cache: Path) -> Path:
    """DSP's bootstrapped demonstrations for the run, built once and kept in ``cache``.

    The program runs with the run's context ``bare`` (bare question/answer demonstrations) on
    the data set's tuning questions; a file per data set, resolved model, K and demonstrations.
    """
    from searchain.eval.dsp_demos import VERSION, bootstrap_dsp_demos

    path = cache_file(cache, "dsp", spec, VERSION, spec.k, spec.demos, bare.dsp_bootstrap)
    tuning = load_records(root, spec.dataset, "tune")  # type: ignore[arg-type]
    return cached_demos(path, lambda: bootstrap_dsp_demos(tuning, bare, llm))


def cached_demos(path: Path, build: Callable[[], list[dict[str, Any]]]) -> Path:
    """``path``, built by ``build`` unless it is there; written whole or not at all."""
    if not path.is_file():
        write_atomic(path, json.dumps(build(), ensure_ascii=False, indent=1) + "\n")
    return path


def eval_context(
    root: Path,
    spec: EvalSpec,
    *,
    index: Path,
    es_url: str = "",
    es_index: str = "searchain-eval",
) -> Context:
    """The run's context with every component built and loaded (the simulated ones included).

    The embedded index at ``index`` (the CLI's ``--index``) is built from the pooled corpus
    if absent.
    """
    from searchain.tools.llms.resolve import resolve_llm
    from searchain.tools.readers.resolve import resolve_reader

    check(spec)
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
    llm = resolve_llm(llm)
    method = get_method(spec.method)
    if method.graph == "searchain" and method.uses_ir:  # SearChain without IR reads nothing
        reader = resolve_reader(reader, llm)
        if hasattr(reader, "load"):
            reader.load()
    if spec.backend == "embedded":
        retriever = pooled_index(root, index)
    else:
        retriever = elastic_index(root, es_url, es_index)
    if method.graph == "searchain":
        verifier = resolve_verifier(spec.verifier)
        if hasattr(verifier, "load"):
            verifier.load()  # missing weights fail before the first question
        # The paper's prompts as published, whatever the model: an evaluation reproduces them.
        return method.context(
            llm=llm,
            retriever=retriever,
            reader=reader,
            verifier=spec.verifier,
            chain_prompt="paper",
        )
    # Few-shot demonstrations of the same data set: built from its tuning split, or IRCoT's
    # published ones (none for the data sets that have neither).
    demos = f"paper-{spec.dataset}" if spec.demos == "paper" else spec.dataset
    fields: dict[str, Any] = {"ircot_demos": demos if demos in SHIPPED else ""}
    if method.graph == "auto_cot":
        fields["auto_cot_demos"] = str(auto_cot_demos(root, spec, llm, index.parent))
    if spec.k is not None and method.k_field:
        fields[method.k_field] = spec.k
    if method.graph == "dsp":
        bare = method.context(llm=llm, retriever=retriever, **fields)
        fields["dsp_demos"] = str(dsp_demos(root, spec, bare, llm, index.parent))
    return method.context(llm=llm, retriever=retriever, **fields)
