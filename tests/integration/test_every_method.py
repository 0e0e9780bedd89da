"""Every method ``searchain eval`` names: on MuSiQue, HotpotQA and 2WikiMultihopQA with scripted
models, and on MuSiQue with the real local model; the report lays them out as Table 1."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

from typer.testing import CliRunner

from searchain.cli.app import app
from searchain.eval.datasets import load_records
from searchain.eval.runner import read_results
from searchain.methods import METHODS
from searchain.tools.llms.resolve import smollm2_path
from tests.conftest import require_module
from tests.method_scripts import every_method_script

DATASETS = ("musique", "hotpotqa", "2wikimultihopqa")
SCRIPT = {**every_method_script("Paris"), "reader": "Answer: Paris\nConfidence: 0.9"}
EMBEDDED = tuple(m for m in METHODS if m != "auto-cot")
"""Every method but Auto-CoT, whose demonstrations need sentence embeddings (the semantic extra)."""


def eval_all(tmp, data, llm, datasets, limit, methods=tuple(METHODS), env=None):
    runner = CliRunner(env=env)
    for dataset in datasets:
        for method in methods:
            args = ["eval", "--dataset", dataset, "--split", "report", "--method", method,
                    "--llm", llm, "--reader", "llm", "--limit", str(limit),
                    "--index", str(tmp / "pooled-index"), "--data", str(data),
                    "--out", str(tmp / f"{dataset}-{method}.jsonl")]  # fmt: skip
            done = runner.invoke(app, args)
            assert done.exit_code == 0, (dataset, method, done.output)
            assert "SIMULATED" not in done.output, (dataset, method, done.output)
    return runner


def test_every_method_on_every_dataset_with_scripted_models(tmp_path, shared_data):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    runner = eval_all(tmp_path, shared_data, f"scripted:{script}", DATASETS, 2, EMBEDDED)
    for dataset in DATASETS:
        for name in EMBEDDED:
            method = METHODS[name]
            results = [r for _, r in read_results(tmp_path / f"{dataset}-{name}.jsonl")]
            assert len(results) == 2, (dataset, name)
            for r in results:
                assert r["config"]["method"] == name and r["usage"]["llm"]["calls"] >= 1
                assert r["prediction"] and r["generation"], (dataset, name, r)
                assert ("paragraph_recall" in r["metrics"]) is method.uses_ir, (dataset, name)
                assert set(r["metrics"]) >= {"cover_em", "cover_em_answer", "em", "f1"}
                assert r["prediction"] == "Paris", (dataset, name, r["prediction"])
    files = sorted(str(p) for p in tmp_path.glob("*.jsonl"))
    done = runner.invoke(app, ["report", *files, "--out", str(tmp_path / "report")])
    assert done.exit_code == 0, done.output
    md = (tmp_path / "report" / "report.md").read_text()
    table = md.split("## Table 1 (SearChain)")[1].split("\n\n")[1].splitlines()
    assert table[0] == "| method | hotpotqa | musique | 2wikimultihopqa |"
    assert [row.split(" | ")[0] for row in table[2:]] == [
        "| **without IR**",
        *(f"| {m}" for m, method in METHODS.items() if method.table1 and not method.uses_ir),
        "| **with IR**",
        *(f"| {m}" for m, method in METHODS.items() if method.table1 and method.uses_ir),
        "| **not in Table 1**",
        "| ircot",
        "| react",
    ]
    assert "| auto-cot | – | – | – |" in table  # not run: a hole, not a missing row
    # DSP's Demonstrate ran its program on tuning questions, once per data set, and kept only
    # those it answered right ("Paris" is none of their answers).
    for dataset in DATASETS:
        (built,) = (tmp_path / "dsp").glob(f"{dataset}-*.json")
        tune = {r.question for r in load_records(shared_data, dataset, "tune")}
        kept = json.loads(built.read_text())
        assert {d["question"] for d in kept} <= tune
        assert all(d["answer"] == "Paris" for d in kept)


def test_auto_cot_builds_its_demonstrations_from_the_tuning_split_once(tmp_path, shared_data):
    require_module("sentence_transformers", "semantic")
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    eval_all(tmp_path, shared_data, f"scripted:{script}", DATASETS, 2, ("auto-cot",))
    built = sorted((tmp_path / "auto-cot").glob("*.json"))
    assert [p.name.split("-")[0] for p in built] == sorted(d.split("-")[0] for d in DATASETS)
    for dataset in DATASETS:
        (path,) = (tmp_path / "auto-cot").glob(f"{dataset}-*.json")
        demos = json.loads(path.read_text())
        tune = {r.question for r in load_records(shared_data, dataset, "tune")}
        assert len(demos) == 8 and {d["question"] for d in demos} <= tune
        results = [r for _, r in read_results(tmp_path / f"{dataset}-auto-cot.jsonl")]
        assert [r["prediction"] for r in results] == ["Paris", "Paris"]
        # A rerun of the same data set and LLM reuses the file (its time stamp stays).
        before = path.stat().st_mtime_ns
        (tmp_path / f"{dataset}-auto-cot.jsonl").unlink()
        eval_all(tmp_path, shared_data, f"scripted:{script}", (dataset,), 1, ("auto-cot",))
        assert path.stat().st_mtime_ns == before


COSTLY = ("auto-cot", "tot", "dsp")
"""Methods of many LLM calls (Auto-CoT builds 8 demonstrations first; ToT samples and values
every chain at every step; DSP bootstraps its demonstrations by running on tuning questions):
run at their narrowest with the real model, DSP's bootstrap on 2 questions, to keep CI short."""


def test_every_method_with_the_real_local_model(tmp_path, shared_data, local_llm_available):
    """SmolLM2 through every graph, on MuSiQue: well-formed, honestly counted results.

    One data set: the three differ in their records and demonstrations, which every method
    reads on every data set in test_every_method_on_every_dataset_with_scripted_models; what
    the real model adds (its replies, parsed or not, counted honestly) is the same on each.
    """
    require_module("sentence_transformers", "semantic")  # Auto-CoT's clustering
    cheap = tuple(m for m in METHODS if m not in COSTLY)
    eval_all(tmp_path, shared_data, "local", ("musique",), 1, cheap)
    # ToT's search at its narrowest (one sample, one chain per step): still every part of it.
    narrow = {
        "SEARCHAIN_TOT_SAMPLES": "1",
        "SEARCHAIN_TOT_BREADTH": "1",
        "SEARCHAIN_DSP_BOOTSTRAP": "2",
    }
    eval_all(tmp_path, shared_data, "local", ("musique",), 1, COSTLY, env=narrow)
    runs = list(itertools.product(("musique",), (*cheap, *COSTLY)))
    for dataset, name in runs:
        method = METHODS[name]
        (r,) = [r for _, r in read_results(tmp_path / f"{dataset}-{name}.jsonl")]
        usage = r["usage"]["llm"]
        assert usage["calls"] >= 1 and usage["tokens_in"] > 0, name
        assert r["simulated"] is False and r["seconds"] > 0
        assert ("paragraph_recall" in r["metrics"]) is method.uses_ir, name
        assert 0.0 <= r["metrics"]["cover_em"] <= 1.0
        assert r["metrics"]["cover_em"] >= r["metrics"]["cover_em_answer"] or not r["generation"]
        assert r["config"]["reader"] == ("llm" if method.reads else "none"), name
        assert usage["tokens_in"] > usage["words_in"] > 0 and usage["tokens_out"] > 0, name
    # OneR read its passages, IRCoT reasoned in sentences; their report names the model that
    # ran, resolved: the spec, then the file it read, by its digest.
    (oner,) = [r for _, r in read_results(tmp_path / "musique-oner.jsonl")]
    (ircot,) = [r for _, r in read_results(tmp_path / "musique-ircot.jsonl")]
    assert len(oner["sources"]) >= 4 and len(ircot["cot"]) >= 1
    out = tmp_path / "baselines"
    files = [str(tmp_path / f"musique-{m}.jsonl") for m in ("oner", "ircot")]
    done = CliRunner().invoke(app, ["report", *files, "--out", str(out)])
    assert done.exit_code == 0, done.output
    md = (out / "report.md").read_text()
    digest = hashlib.sha256(Path(smollm2_path()).read_bytes()).hexdigest()[:16]
    assert f"| oner | musique | report | local → local sha256:{digest} | none | 1 (" in md
    # No SearChain run among them, so no knowledge sources to plot.
    assert sorted(p.name for p in out.glob("*.png")) == [
        "metric_by_method.png",
        "rounds_histogram.png",
    ]
