"""``searchain eval``: run a method over a data set split, one JSON line per question.

A results file is append-only and self-describing: every line carries the run's configuration
(:class:`EvalSpec`), so a file never mixes runs, a killed run resumes by skipping the questions
already written, and ``searchain report`` can compare files without any other bookkeeping.
Questions run concurrently through the graphs' async API; each line is written as soon as its
question finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from searchain.errors import SettingError
from searchain.eval.alce import alce_scores
from searchain.eval.usage import UsageCounter
from searchain.methods import Method, get_method
from searchain.output import result_to_json
from searchain.questions.metrics import (
    OFFICIAL_STYLE,
    cover_em,
    cover_em_words,
    exact_match,
    f1,
    label_accuracy,
    paragraph_recall,
)
from searchain.questions.record import Record
from searchain.state import KnowledgeSource, reasoning_path
from searchain.text import normalize_answer
from searchain.tools.verifiers.resolve import resolve_verifier
from searchain.types import Passage

Run = tuple[tuple[str, Any], ...]
"""A run's configuration as a hashable key (``searchain report`` groups results by it)."""
SOURCES: tuple[KnowledgeSource, ...] = ("llm", "corrected", "completed")
"""The knowledge sources of the paper's Table 2 (a person's edits never happen in an evaluation)."""
SIMULATED = "simulated"
"""The LLM and reader spec of the simulated models (MuSiQue only; see ``eval.simulated``)."""


@dataclass(frozen=True)
class EvalSpec:
    """What a run is; recorded in every line, and results of different specs never mix."""

    dataset: str
    """Data set name (musique, hotpotqa, 2wikimultihopqa, strategyqa, fever)."""
    split: str
    """``tune`` (first 100) or ``report`` (last 100)."""
    method: str
    """Method name (see :data:`searchain.methods.METHODS`)."""
    llm: str
    """LLM spec, or ``simulated``."""
    reader: str
    """Reader spec, or ``simulated``."""
    backend: str
    """``embedded`` or ``elasticsearch``."""
    p: float | None = None
    """Simulated LLM: probability of a wrong hop answer."""
    u: float | None = None
    """Simulated LLM: probability of an ``[Unsolved Query]`` hop."""
    seed: int | None = None
    """Simulated LLM: seed of its draws."""
    k: int | None = None
    """Paragraphs per retrieval (IRCoT's K, OneR's K, the baselines' K); ``None``: the
    method's default. Tune it on the tuning split, per data set, as the IRCoT paper did."""
    demos: str = "tuning"
    """IRCoT's family's few-shot demonstrations: ``tuning`` (built from the data set's tuning
    split) or ``paper`` (IRCoT's published ones, appendix G)."""
    model: str = ""
    """The model that ran, resolved (:func:`searchain.tools.llms.resolve.model_identity`):
    ``auto`` as the spec it meant, a GGUF or script file with its digest; empty in files
    written before it was recorded. A file is never resumed with another model."""
    verifier: str = "lexical"
    """Who gave the verdicts on citations: ``lexical`` or ``nli:MODEL`` (which also gives
    ALCE's citation figures)."""

    @property
    def simulated(self) -> bool:
        """Whether a simulated model takes part (then every output must say so)."""
        return SIMULATED in (self.llm, self.reader)


LATER = {"k": None, "demos": "tuning", "model": "", "verifier": "lexical"}
"""Configuration fields added after the first results files, with the value older runs had."""


def read_results(
    path: Path, *, partial: list[int] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The ``(line number, result)`` pairs of a results file; one clear error for a bad line.

    A last line with no newline that is not JSON is a write a kill cut short: with ``partial``
    given it is skipped and its number appended there, else it is an error like any bad line.
    """
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                result = json.loads(line)
            except json.JSONDecodeError as exc:
                if partial is not None and not line.endswith("\n"):
                    partial.append(number)
                    continue
                raise ValueError(
                    f"{path} line {number} is not valid JSON ({exc.msg}): a run killed mid-write "
                    "leaves a partial last line; delete that line and run again"
                ) from None
            config = result.get("config") if isinstance(result, dict) else None
            if (
                not isinstance(config, dict)
                or not {"id", "metrics"} <= result.keys()
                or not {f.name for f in fields(EvalSpec) if f.name not in LATER} <= config.keys()
            ):
                raise ValueError(
                    f"{path} line {number} is not an evaluation's result (no id, metrics and "
                    "config of dataset, split, method, llm, reader, backend, p, u, seed)"
                )
            result["config"] = {**LATER, **config}
            yield number, result


def drop_partial_line(path: Path) -> None:
    """Cut a last line a kill left unfinished (no newline), so appending starts a fresh line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("r+b") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":
            return  # whole lines: the usual case reads one byte, not the file
        data = path.read_bytes()
        handle.truncate(data.rfind(b"\n") + 1)


def done_ids(out: Path, spec: EvalSpec) -> set[str]:
    """Ids already answered in ``out`` by this very configuration; refuse a file of another."""
    if not out.exists():
        return set()
    wanted = asdict(spec)
    done = set()
    for number, result in read_results(out, partial=[]):  # a cut last line runs again
        if result["config"] != wanted:
            differs = sorted(k for k in wanted if result["config"].get(k) != wanted[k])
            found = ", ".join(f"{k}={result['config'].get(k)!r}" for k in differs)
            raise SettingError(
                "{file} holds results of another run configuration (line {number}: {found}): "
                "write to another {out} file",
                settings=("out",),
                file=out,
                number=number,
                found=found,
            )
        done.add(result["id"])
    return done


def score(
    record: Record,
    prediction: str,
    retrieved: list[Passage] | None,
    generated: str | None = None,
) -> dict[str, float]:
    """The record's metrics: answer metrics by task, and gold-paragraph recall where it applies.

    ``cover_em`` is the papers' (on the whole ``generated`` output), ``cover_em_answer`` the same
    on the extracted answer, ``cover_em_words`` the stricter word-boundary form on the output;
    EM and F1 are the data set's official ones (MuSiQue's for data sets without a script).
    """
    if record.task in ("yesno", "factcheck"):
        metrics = {"accuracy": label_accuracy(prediction, record.answers[0])}
    else:
        output = generated or prediction
        style = OFFICIAL_STYLE.get(record.dataset, "musique")
        metrics = {
            "cover_em": cover_em(output, record.answers, record.question),
            "cover_em_answer": cover_em(prediction, record.answers, record.question),
            "cover_em_words": cover_em_words(output, record.answers, record.question),
            "em": exact_match(prediction, record.answers, style),
            "f1": f1(prediction, record.answers, style),
        }
    if retrieved is not None and record.gold_paragraphs:
        found = [(p.title, p.text) for p in retrieved]
        metrics["paragraph_recall"] = paragraph_recall(found, record.gold_paragraphs)
    return metrics


def hop_outcomes(record: Record, path: list[Any]) -> list[dict[str, Any]]:
    """For each reasoning step that asks a gold hop: where its answer came from, right or not.

    Matching is on the normalised sub-question, earlier gold answers substituted (what the
    simulated LLM asks when it answered earlier hops right); with a real LLM few steps match.
    """
    gold = {normalize_answer(h.question): (i, h.answer) for i, h in enumerate(record.hops, 1)}
    outcomes = []
    for node in path:
        hop = gold.get(normalize_answer(node.query))
        if hop is None:
            continue
        outcomes.append(
            {
                "hop": hop[0],
                "source": node.source,
                "llm_right": bool(node.llm_answer)
                and cover_em_words(node.llm_answer, [hop[1]]) == 1,
                "final_right": cover_em_words(node.answer, [hop[1]]) == 1,
            }
        )
    return outcomes


def result_line(
    spec: EvalSpec,
    method: Method,
    record: Record,
    output: dict[str, Any],
    usage: UsageCounter,
    seconds: float,
) -> dict[str, Any]:
    """One results line for ``record`` from the graph's ``output``."""
    line: dict[str, Any] = {
        "config": asdict(spec),
        "simulated": spec.simulated,
        "id": record.id,
        "question": record.question,
        "answers": list(record.answers),
        "task": record.task,
        "prediction": output.get("answer", ""),
    }
    if not method.tree:  # IRCoT and the baselines share IRCoT's output
        retrieved: list[Passage] = output.get("paragraphs", [])
        generated = output.get("generation", "")
        steps = output.get("steps", 0)
        rounds = len(output.get("queries", []))  # retrieval rounds
        extra: dict[str, Any] = {"cot": output.get("cot", [])}
    else:
        nodes = output.get("nodes", [])
        path = reasoning_path(nodes)
        branches = output.get("branches", [])
        # Only the passages on the path the answer used: a reading past a correction (read
        # ahead by parallel traversal, never used) is no source, so recall and sources do not
        # depend on the traversal mode.
        retrieved = list({n.passage.id: n.passage for n in path if n.passage}.values())
        steps = len(path) if path else len(branches[-1].nodes) if branches else 0
        rounds = output.get("rounds", 0)
        sources = Counter(n.source for n in path)
        references = output.get("references", [])
        written = [r for r in references if not r.inserted]  # the model's own citations
        # Scored on the model's words only: a composed content (searchain's sentences from
        # the path) and an answer taken from the last step are shown, never scored.
        generated = output.get("model_content", "")
        if output.get("answer_source") != "model":
            line["prediction"] = ""
        extra = {
            "knowledge_sources": {s: sources[s] for s in SOURCES},
            "stop_reason": output.get("stop_reason", ""),
            "hops": hop_outcomes(record, path),
            "content_source": output.get("content_source", ""),
            # Each reference cites one distinct step: stated references are the steps backed.
            "citations": {
                "cited": len(written),
                "stated": sum(1 for r in written if r.support == "stated"),
                "unverifiable": sum(1 for r in written if r.support == "unverifiable"),
                "inserted": len(references) - len(written),
                "steps": len(path),
            },
        }
        extra["result"] = result_to_json(output)  # the whole tree: the report's page of it
    # A method with IR has a recall even when it chose not to search (Verify-and-Edit on a
    # confident vote): it retrieved none of the gold paragraphs.
    retrieval = retrieved if method.uses_ir else None
    line["metrics"] = score(record, line["prediction"], retrieval, generated)
    line["generation"] = generated
    line["format_failures"] = list(output.get("format_failures", []))
    line.update(
        rounds=rounds,
        steps=steps,
        **extra,
        sources=[{"id": p.id, "title": p.title} for p in retrieved],
        usage=usage.totals(),
        seconds=round(seconds, 3),
    )
    return line


async def run_records(
    spec: EvalSpec,
    records: list[Record],
    context: Any,
    out: Path,
    *,
    concurrency: int = 1,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> int:
    """Answer ``records`` not yet in ``out``, appending one line each; return how many ran.

    At most ``concurrency`` questions run at once. A question that fails stops the run (the
    others are cancelled); every line written before stays, so running again resumes.
    ``on_start`` hears how many of ``records`` were already done, ``on_result`` each new line.
    """
    if concurrency < 1:
        raise SettingError(
            "{concurrency} must be at least 1, got {value}",
            settings=("concurrency",),
            value=concurrency,
        )
    method = get_method(spec.method)
    graph = method.compiled()
    entails = getattr(resolve_verifier(getattr(context, "verifier", "lexical")), "entails", None)
    done = done_ids(out, spec)
    todo = [r for r in records if r.id not in done]
    if on_start is not None:
        on_start(len(records) - len(todo))
    gate = asyncio.Semaphore(concurrency)

    async def answer(record: Record) -> dict[str, Any]:
        async with gate:
            usage = UsageCounter()
            started = time.perf_counter()
            output = await graph.ainvoke(
                {"question": record.question, "task": method.task or record.task},
                config={"callbacks": [usage]},
                context=context,
            )
            line = result_line(spec, method, record, output, usage, time.perf_counter() - started)
            line["asked"] = len(records)  # so a run stopped early never reads as complete
            if entails is not None and method.tree:
                # ALCE's figures on the model's reply as written, never a composed content;
                # its documents are the path's passages by step, as Trace's prompt numbers them.
                by_step = {n.step: n.passage for n in output.get("nodes", []) if n.step}
                docs = [by_step.get(step) for step in range(1, max(by_step, default=0) + 1)]
                reply = output.get("trace_reply", "")
                alce = await asyncio.to_thread(alce_scores, reply, docs, entails)
                if alce is not None:  # an output with no sentence: ALCE skips it
                    line["alce"] = alce
            return line

    out.parent.mkdir(parents=True, exist_ok=True)
    drop_partial_line(out)  # the question of a line a kill cut short is answered again
    tasks = [asyncio.ensure_future(answer(record)) for record in todo]
    try:
        with out.open("a", encoding="utf-8") as sink:
            for finished in asyncio.as_completed(tasks):
                line = await finished
                sink.write(json.dumps(line, ensure_ascii=False) + "\n")
                sink.flush()
                if on_result is not None:
                    on_result(line)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return len(todo)
