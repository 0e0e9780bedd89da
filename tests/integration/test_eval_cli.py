"""``searchain eval`` and ``searchain report`` as a user runs them, on the real shared data.

The simulated LLM and reader run over real BM25 on MuSiQue's reporting split (every method on
the local SmolLM2: tests/integration/test_every_method.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from searchain.eval.report import summarize
from searchain.eval.runner import read_results
from tests.conftest import ROOT, require_module
from tests.integration.test_cli import one_line_error, searchain
from tests.integration.test_every_method import SCRIPT
from tests.tiny_models import make_nli_model


@pytest.fixture(scope="module")
def workdir(shared_data, tmp_path_factory):
    """A scratch directory and an environment that points at the shared data."""
    path = tmp_path_factory.mktemp("eval")
    return path, {**os.environ, "SEARCHAIN_DATA_DIR": str(shared_data)}


def simulated(workdir, out, *extra):
    path, env = workdir
    args = ["eval", "--dataset", "musique", "--split", "report", "--method", "searchain"]
    args += ["--llm", "simulated", "--reader", "simulated", "--u", "0.1", "--out", str(out)]
    args += ["--index", str(path / "pooled-index"), *extra]
    return searchain(*args, env=env, cwd=path)


def test_a_short_simulated_run_on_the_reporting_split_is_well_formed(workdir):
    path, _env = workdir
    out = path / "sim.jsonl"
    done = simulated(workdir, out, "--p", "0.6", "--limit", "12", "--concurrency", "4")
    assert done.returncode == 0, done.stderr
    assert "SIMULATED searchain on musique report (12 questions, p=0.6 u=0.1 seed=0)" in done.stderr
    # Each question's progress line says it too (issue 42, case 8): a log read from its middle.
    progress = [line for line in done.stderr.splitlines() if "/12 " in line]
    assert len(progress) == 12 and all(line.startswith("SIMULATED ") for line in progress)
    lines = [r for _, r in read_results(out)]
    assert len(lines) == 12 and len({r["id"] for r in lines}) == 12
    for r in lines:
        assert r["simulated"] is True and r["config"]["p"] == 0.6
        covers = {"cover_em", "cover_em_answer", "cover_em_words"}
        assert set(r["metrics"]) == {*covers, "em", "f1", "paragraph_recall"}
        assert r["metrics"]["cover_em"] >= r["metrics"]["cover_em_words"]
        assert r["generation"] and r["prediction"] in r["generation"]
        assert all(0.0 <= v <= 1.0 for v in r["metrics"].values())
        assert sum(r["knowledge_sources"].values()) == r["steps"] >= 1
        assert 1 <= r["rounds"] <= 5 and r["usage"]["llm"]["calls"] == r["rounds"] + 1
        assert {h["hop"] for h in r["hops"]} <= set(range(1, 5))
        assert len(r["sources"]) >= 1
    hops = summarize(lines)["hops"]
    assert hops["corrections"] >= 1 and 0.0 <= hops["precision"] <= 1.0
    assert hops["wrong_hops"] >= hops["corrections"] * hops["precision"]

    again = simulated(workdir, out, "--p", "0.6", "--limit", "12")
    assert again.returncode == 0 and "0 answered now, 12 in all" in again.stderr

    report = searchain("report", str(out), "--out", str(path / "report"), cwd=path)
    assert report.returncode == 0, report.stderr
    md = (path / "report" / "report.md").read_text()
    assert "**SIMULATED**" in md and "searchain (simulated p=0.6 u=0.1)" in md
    assert "## Verify at the hop level" in md
    assert (path / "report" / "knowledge_sources.png").stat().st_size > 1000


def test_another_configuration_into_the_same_file_is_refused(workdir):
    path, _ = workdir
    out = path / "mixed.jsonl"
    assert simulated(workdir, out, "--p", "0", "--limit", "2").returncode == 0
    done = simulated(workdir, out, "--p", "0.3", "--limit", "2")
    one_line_error(done, "another run configuration", "p=0.0", "another --out file")
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dataset", "squad", "--method", "searchain"], ["unknown dataset 'squad'"]),
        (["--dataset", "musique", "--method", "selfask"], ["unknown method 'selfask'"]),
        (["--dataset", "musique", "--method", "ircot", "--split", "dev"], ["unknown split"]),
        (
            ["--dataset", "hotpotqa", "--method", "searchain", "--llm", "simulated"],
            ["simulated LLM and reader", "--dataset musique"],
        ),
        (["--dataset", "musique", "--method", "ircot", "--p", "0.3"], ["--llm simulated"]),
        (
            ["--dataset", "musique", "--method", "searchain", "--llm", "simulated", "--u", "2"],
            ["--u is a probability"],
        ),
        (["--dataset", "fever", "--method", "searchain-no-ir"], ["question-answering prompt"]),
    ],
)
def test_bad_eval_input_gets_one_line(workdir, args, fragments):
    path, env = workdir
    done = searchain("eval", *args, "--out", str(path / "bad.jsonl"), env=env, cwd=path)
    one_line_error(done, *fragments)
    assert not (path / "bad.jsonl").exists()


def test_a_data_dir_without_the_files_is_named(tmp_path):
    done = searchain(
        "eval", "--dataset", "musique", "--method", "oner", "--data", str(tmp_path),
        "--out", str(tmp_path / "r.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    one_line_error(done, f"{tmp_path} lacks", "SEARCHAIN_DATA_DIR")


def test_a_corrupt_results_line_is_named(workdir):
    path, _env = workdir
    out = path / "corrupt.jsonl"
    assert simulated(workdir, out, "--p", "0", "--limit", "1").returncode == 0
    with out.open("a") as f:
        f.write('{"config": {"data\n')
    one_line_error(simulated(workdir, out, "--p", "0", "--limit", "2"), "line 2 is not valid JSON")
    one_line_error(searchain("report", str(out), cwd=path), "line 2 is not valid JSON")


def scripted_direct(workdir, out, script):
    path, env = workdir
    args = ["eval", "--dataset", "musique", "--split", "report", "--method", "direct"]
    args += ["--llm", f"scripted:{script}", "--limit", "2", "--out", str(out)]
    return searchain(*args, "--index", str(path / "pooled-index"), env=env, cwd=path)


def test_results_record_the_model_that_ran_and_refuse_another(workdir):
    """Issue 29, case 8: the file said "auto" (or a spec), not which model answered; a file
    resumed with another model took its answers and the report merged them."""
    path, _ = workdir
    script, out = path / "model.json", path / "which-model.jsonl"
    script.write_text(json.dumps({"rules": [[".", "So the answer is: Paris."]]}))
    first = scripted_direct(workdir, out, script)
    assert first.returncode == 0, first.stderr
    digest = hashlib.sha256(script.read_bytes()).hexdigest()[:16]
    models = {r["config"]["model"] for _, r in read_results(out)}
    assert models == {f"scripted:{script} sha256:{digest}"}
    script.write_text(json.dumps({"rules": [[".", "So the answer is: Rome."]]}))  # same name
    again = scripted_direct(workdir, out, script)
    one_line_error(again, "another run configuration", "model=", "another --out file")
    assert len(out.read_text().splitlines()) == 2


def test_the_nli_verifier_runs_through_eval_and_report(workdir, tmp_path):
    """``--verifier nli:MODEL`` decides the verdicts and ALCE's figures, end to end (a tiny
    model biased to entail, so the figures are known)."""
    require_module("transformers", "models")
    path, env = workdir
    model = make_nli_model(tmp_path / "nli", decides="ENTAILMENT")
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    out = tmp_path / "nli.jsonl"
    args = ["eval", "--dataset", "musique", "--split", "report", "--method", "searchain"]
    args += ["--llm", f"scripted:{script}", "--reader", "llm", "--limit", "2", "--out", str(out)]
    args += ["--index", str(path / "pooled-index"), "--verifier", f"nli:{model}"]
    done = searchain(*args, env=env, cwd=path)
    assert done.returncode == 0, done.stderr
    results = [r for _, r in read_results(out)]
    assert len(results) == 2
    for r in results:
        assert r["config"]["verifier"] == f"nli:{model}"
        # "It is Paris [1]." is entailed by its passage; "So the final answer is Paris." cites
        # nothing: ALCE's recall is 1 of 2 sentences, its precision 1 of 1 citation.
        assert r["alce"] == {"recall": 0.5, "precision": 1.0}
        assert [ref["support"] for ref in r["result"]["references"]] == ["stated"]
    report = searchain("report", str(out), "--out", str(tmp_path / "report"), cwd=path)
    assert report.returncode == 0, report.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith(f"| searchain | nli:{model}"))
    assert row.endswith("| 0.500 | 1.000 |"), row
    # A method that cites nothing has nothing to verify: one line, before anything loads.
    done = searchain(*[a if a != "searchain" else "direct" for a in args], env=env, cwd=path)
    one_line_error(done, "direct cites nothing, so there is nothing to verify")


def test_the_simulated_llm_says_what_it_was_told_and_plays_only_searchain(workdir):
    """Issue 33, case 7: `--llm simulated` ran at p = u = 0 without saying so ("SearChain EM
    1.000, 0 corrections"), answered `direct` with "I do not know this question", and
    `searchain-no-ir` loaded the DPR reader it never uses and failed after 31 s."""
    path, env = workdir
    args = ["eval", "--dataset", "musique", "--split", "report", "--llm", "simulated"]
    args += ["--reader", "simulated", "--limit", "1", "--index", str(path / "pooled-index")]
    done = searchain(*args, "--method", "searchain", "--out", str(path / "p0.jsonl"), env=env)
    assert done.returncode == 0, done.stderr
    assert "(1 question, p=0.0 u=0.0 seed=0)" in done.stderr
    assert "note: with --p 0 and --u 0 the simulated LLM answers every hop right" in done.stderr
    direct = searchain(*args, "--method", "direct", "--out", str(path / "d.jsonl"), env=env)
    one_line_error(direct, "the simulated LLM writes SearChain's Chains-of-Query only")
    no_ir = [a if a != "simulated" or i != args.index("--reader") + 1 else "dpr"
             for i, a in enumerate(args)]  # fmt: skip
    out = path / "no-ir.jsonl"
    done = searchain(*no_ir, "--method", "searchain-no-ir", "--p", "0.3", "--out", str(out),
                     env={**env, "HF_HUB_OFFLINE": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr  # no DPR weights here, and none needed
    (result,) = [r for _, r in read_results(out)]
    assert result["config"]["reader"] == "none"


def ctrl_c_as_a_terminal_gives_it() -> None:
    """A suite started as a shell's background job (``.ci/run &``) hands its children SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler: the run would finish."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_says_how_to_resume_and_progress_shows_without_a_terminal(workdir, tmp_path):
    """Issue 33, case 9: Ctrl-C printed only "interrupted"; with stderr not a terminal nothing
    was printed until the end."""
    path, env = workdir
    log, release = tmp_path / "calls.log", tmp_path / "release"
    script = tmp_path / "held.json"
    rules = [[".", "So the answer is: Paris."]]
    script.write_text(json.dumps({"rules": rules, "log": str(log), "hold_from": 2,
                                  "release": str(release)}))  # fmt: skip
    out = tmp_path / "stopped.jsonl"
    args = ["eval", "--dataset", "musique", "--split", "report", "--method", "direct"]
    args += ["--llm", f"scripted:{script}", "--limit", "2", "--out", str(out)]
    args += ["--index", str(path / "pooled-index")]
    run = subprocess.Popen([sys.executable, "-m", "searchain", *args], env=env, cwd=path,
                           stderr=subprocess.PIPE, text=True,
                           preexec_fn=ctrl_c_as_a_terminal_gives_it)  # fmt: skip
    try:
        for _ in range(6000):  # until the second question's call is held (at most 10 min)
            if log.exists() and len(log.read_text().splitlines()) >= 2:
                break
            time.sleep(0.1)
        run.send_signal(signal.SIGINT)
    finally:
        release.touch()  # the held call returns, so the run can end
        _, stderr = run.communicate(timeout=300)
    assert run.returncode == 130, stderr
    assert "1/2 " in stderr  # the first question, logged as it finished
    assert f"interrupted: 1 of 2 questions are in {out}; run the same command again" in stderr
    assert len(out.read_text().splitlines()) == 1
    again = searchain(*args, env=env, cwd=path)
    assert again.returncode == 0 and "1 answered now, 2 in all" in again.stderr
    assert "2/2 " in again.stderr


TOY = '''"""A toy method: the LLM answers at once, after a set-up of its own."""

from typing import Any

from searchain.methods.method import Method, Setup


def prepare(method: Method, setup: Setup) -> dict[str, Any]:
    (setup.cache / "toy-prepared.txt").write_text(f"{setup.dataset} {setup.model}")
    return {"ircot_demos": ""}


TOY = Method(
    "toy",
    "searchain.graph.ircot:build_graph",
    "a toy: the LLM answers at once",
    {"ircot_k": 0, "ircot_answer": "direct"},
    k_field=None,
    uses_ir=False,
    prepare=prepare,
)
'''


def test_a_new_method_is_one_file_and_one_registry_line(workdir, tmp_path):
    """Issue 45: a method of the user's own, in a copy of the package with nothing else
    changed, runs through ``searchain eval`` with its own set-up."""
    path, env = workdir
    copy = tmp_path / "pkg" / "searchain"
    shutil.copytree(ROOT / "searchain", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "methods" / "toy.py").write_text(TOY)
    registry = copy / "methods" / "__init__.py"
    text = registry.read_text()
    assert text.count("REGISTRY = (\n") == 1
    registry.write_text(
        text.replace("REGISTRY = (\n", 'REGISTRY = (\n    "searchain.methods.toy:TOY",\n')
    )
    script, out = tmp_path / "toy.json", tmp_path / "toy.jsonl"
    script.write_text(json.dumps({"rules": [[".", "So the answer is: Paris."]]}))
    args = ["eval", "--dataset", "musique", "--split", "report", "--method", "toy"]
    args += ["--llm", f"scripted:{script}", "--limit", "2", "--out", str(out)]
    args += ["--index", str(path / "pooled-index")]
    done = searchain(*args, env={**env, "PYTHONPATH": str(copy.parent)}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [r for _, r in read_results(out)]
    assert len(lines) == 2
    assert {r["config"]["method"] for r in lines} == {"toy"}
    assert {r["prediction"] for r in lines} == {"Paris"}
    assert (path / "toy-prepared.txt").read_text().startswith("musique scripted:")
    # The checkout's own package has no such method: the copy ran.
    unknown = searchain(*args[:-2], "--index", str(path / "pooled-index"), env=env, cwd=tmp_path)
    assert unknown.returncode != 0 and "unknown method 'toy'" in unknown.stderr
