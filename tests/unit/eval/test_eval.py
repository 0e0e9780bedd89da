"""The evaluation runner and report: resume, concurrency, refusals, and hand-computed figures."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

from searchain.eval.figures import alce_figures, citation_figures, format_figures, hop_figures
from searchain.eval.report import load_runs, write_report
from searchain.eval.runner import EvalSpec, read_results, run_records, score
from searchain.methods import METHODS, get_method
from searchain.questions.record import Record
from searchain.types import Passage
from tests.conftest import TableRetriever, cli_line, require_module

SPEC = EvalSpec("musique", "tune", "direct", "fake", "none", "embedded")
RECORDS = [
    Record("musique", f"q{i}", f"What is item {i}?", (f"Thing {i}",), "qa") for i in range(6)
]


class Answerer(BaseChatModel):
    """Answers "What is item N?" with "Thing N"; can fail on one question, and can hold each
    call until ``gather`` calls are in flight together (a barrier, not a clock)."""

    fail_on: str = ""
    gather: int = 1
    asked: list[str] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _active: int = PrivateAttr(default=0)
    _together: threading.Barrier | None = PrivateAttr(default=None)
    peak: int = 0

    @property
    def _llm_type(self) -> str:
        return "answerer"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        question = messages[0].text.rsplit("\nQ: ", 1)[1].split("\n")[0]
        with self._lock:
            self._active += 1
            self.peak = max(self.peak, self._active)
            self.asked.append(question)
            if self._together is None:
                self._together = threading.Barrier(self.gather, timeout=120)
        try:
            self._together.wait()
            if question == self.fail_on:
                raise RuntimeError("provider went away")
            reply = "Thing " + question.split()[-1].rstrip("?")
        finally:
            with self._lock:
                self._active -= 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def evaluate(llm, records, out, spec=SPEC, **kwargs):
    context = get_method(spec.method).context(llm=llm, retriever=TableRetriever({}))
    return asyncio.run(run_records(spec, records, context, out, **kwargs))


def ids(out):
    return [r["id"] for _, r in read_results(out)]


def test_every_method_is_runnable_by_name():
    """SearChain's Table 1, row for row (without IR, then with IR, its two ablations last),
    then IRCoT and plain ReAct."""
    without_ir = [
        "direct",
        "auto-cot",
        "cot",
        "cot-sc",
        "recite-and-answer",
        "self-ask-no-ir",
        "least-to-most",
        "plan-and-solve-no-ir",
        "searchain-no-ir",
    ]
    with_ir = [
        "oner",
        "toolformer",
        "self-ask",
        "plan-and-solve",
        "react-cot-sc",
        "verify-and-edit",
        "tot",
        "dsp",
        "searchain",
        "searchain-no-verify",
        "searchain-no-complete",
    ]
    assert list(METHODS) == [*without_ir, *with_ir, "ircot", "react"]
    assert len(without_ir) + len(with_ir) == 20  # Table 1's rows
    assert [name for name, m in METHODS.items() if not m.uses_ir] == without_ir
    assert get_method("oner").context().ircot_max_steps == 0
    assert get_method("direct").context(ircot_k=7).ircot_k == 0  # the method's setting wins
    assert get_method("searchain-no-verify").context().verify is False
    assert get_method("searchain-no-ir").task == "no_ir"
    with pytest.raises(ValueError, match="unknown method 'selfask': choose one of direct, auto"):
        get_method("selfask")


def test_each_question_gets_one_self_describing_line(tmp_path):
    out = tmp_path / "results.jsonl"
    assert evaluate(Answerer(), RECORDS[:3], out) == 3
    lines = [r for _, r in read_results(out)]
    assert sorted(r["id"] for r in lines) == ["q0", "q1", "q2"]
    first = next(r for r in lines if r["id"] == "q1")
    assert first["config"] == {
        "dataset": "musique",
        "split": "tune",
        "method": "direct",
        "llm": "fake",
        "reader": "none",
        "backend": "embedded",
        "p": None,
        "u": None,
        "seed": None,
        "k": None,
        "demos": "tuning",
        "model": "",
        "verifier": "lexical",
    }
    assert first["prediction"] == "Thing 1" and first["simulated"] is False
    metrics = {"cover_em", "cover_em_answer", "cover_em_words", "em", "f1"}  # no recall: no IR
    assert first["metrics"] == dict.fromkeys(metrics, 1.0)
    assert first["usage"]["llm"]["calls"] == 1 and first["usage"]["llm"]["words_out"] == 2
    assert first["usage"]["llm"]["words_in"] > 10 and first["usage"]["reader"]["calls"] == 0
    assert first["sources"] == [] and first["seconds"] >= 0


def test_a_rerun_answers_only_the_questions_not_yet_written(tmp_path):
    out = tmp_path / "results.jsonl"
    llm = Answerer()
    evaluate(llm, RECORDS[:2], out)
    assert evaluate(llm, RECORDS[:4], out) == 2
    assert sorted(ids(out)) == ["q0", "q1", "q2", "q3"]
    assert len(llm.asked) == 4  # nothing was asked twice


def test_a_failing_question_stops_the_run_and_keeps_what_finished(tmp_path):
    out = tmp_path / "results.jsonl"
    with pytest.raises(RuntimeError, match="provider went away"):
        evaluate(Answerer(fail_on="What is item 2?"), RECORDS[:4], out)
    assert sorted(ids(out)) == ["q0", "q1"]  # q3 was cancelled, never written half
    assert evaluate(Answerer(), RECORDS[:4], out) == 2
    assert sorted(ids(out)) == ["q0", "q1", "q2", "q3"]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_bounds_the_questions_in_flight(tmp_path, concurrency):
    llm = Answerer(gather=concurrency)  # each call waits until `concurrency` are in flight
    assert evaluate(llm, RECORDS, tmp_path / "r.jsonl", concurrency=concurrency) == 6
    assert llm.peak == concurrency
    assert len(ids(tmp_path / "r.jsonl")) == 6


def test_results_of_another_configuration_are_refused(tmp_path):
    out = tmp_path / "results.jsonl"
    evaluate(Answerer(), RECORDS[:1], out)
    other = replace(SPEC, method="cot")
    with pytest.raises(ValueError, match=r"another run configuration \(line 1: method='direct'\)"):
        evaluate(Answerer(), RECORDS[:1], out, spec=other)
    assert ids(out) == ["q0"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"config": {"dataset"', "line 2 is not valid JSON"),
        ("[1, 2]", "line 2 is not an evaluation's result"),
    ],
)
def test_a_corrupt_line_is_named(tmp_path, bad, message):
    out = tmp_path / "results.jsonl"
    evaluate(Answerer(), RECORDS[:1], out)
    with out.open("a") as f:
        f.write(bad + "\n")
    with pytest.raises(ValueError, match=message):
        evaluate(Answerer(), RECORDS, out)
    with pytest.raises(ValueError, match=message):
        load_runs([out])


def test_bad_concurrency_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^concurrency must be at least 1, got 0$") as refused:
        evaluate(Answerer(), RECORDS, tmp_path / "r.jsonl", concurrency=0)
    assert cli_line(refused.value) == "--concurrency must be at least 1, got 0"


def test_labels_are_scored_by_accuracy_and_paragraphs_by_recall():
    yesno = Record("strategyqa", "s", "Did Aristotle use a laptop?", ("no",), "yesno")
    assert score(yesno, "No.", None) == {"accuracy": 1.0}
    gold = (("A", "alpha"), ("B", "beta"))
    record = Record("hotpotqa", "h", "q?", ("Paris",), "qa", gold_paragraphs=gold)
    found = [Passage("1", "A", "alpha"), Passage("2", "C", "gamma")]
    assert score(record, "It is Paris.", found)["paragraph_recall"] == 0.5
    assert score(record, "It is Paris.", found)["cover_em"] == 1.0


def test_hop_figures_by_hand():
    hops = [
        {"source": "corrected", "llm_right": False, "final_right": True},  # fixed
        {"source": "corrected", "llm_right": True, "final_right": False},  # misled
        {"source": "llm", "llm_right": False, "final_right": False},  # wrong, missed
        {"source": "llm", "llm_right": True, "final_right": True},
        {"source": "llm", "llm_right": True, "final_right": True},
        {"source": "completed", "llm_right": False, "final_right": True},
    ]
    assert hop_figures(hops) == {
        "corrections": 2,
        "precision": 0.5,
        "recall": 0.5,  # 1 of the 2 wrong hops Verify saw
        "wrong_hops": 2,
        "misleading": pytest.approx(1 / 3),  # 1 of the 3 right hops
        "right_hops": 3,
        "completions": 1,
    }


def test_citation_figures_by_hand():
    counts = [
        {"cited": 3, "stated": 2, "unverifiable": 0, "inserted": 0, "steps": 3},  # one unstated
        {"cited": 1, "stated": 1, "unverifiable": 0, "inserted": 0, "steps": 2},  # one uncited
        {"cited": 0, "stated": 0, "unverifiable": 0, "inserted": 2, "steps": 2},  # composed
        {"cited": 2, "stated": 0, "unverifiable": 2, "inserted": 0, "steps": 2},  # yes/no steps
    ]
    assert citation_figures(counts) == {
        "per_question": 1.5,  # the model's citations only: 6 over 4 questions
        "precision": 0.75,  # 3 of the 4 citations the rule could judge
        "recall": pytest.approx(3 / 9),  # 3 of 9 steps backed by a stated citation
        "unverifiable": pytest.approx(2 / 6),
        "inserted": 0.5,  # searchain's, in neither figure
    }
    assert citation_figures([{"cited": 0, "stated": 0, "steps": 0}]) == {
        "per_question": 0.0,
        "precision": None,
        "recall": None,
        "unverifiable": None,
        "inserted": 0.0,
    }


def test_alce_figures_average_the_questions():
    scores = [{"recall": 1.0, "precision": 0.5}, {"recall": 0.0, "precision": 0.0}]
    assert alce_figures(scores) == {"recall": 0.5, "precision": 0.25}


def test_format_figures_by_hand():
    failures = [[], ["no_chain"], ["invalid_action", "invalid_action", "no_final_answer"], []]
    assert format_figures(failures) == {
        "rate": 0.5,  # 2 of 4 questions had an unreadable reply
        "per_question": 1.0,  # 4 unreadable replies over 4 questions
        "kinds": {"invalid_action": 2, "no_chain": 1, "no_final_answer": 1},
    }


def line(
    method: str,
    qid: str,
    right: bool,
    sources=(0, 0, 0),
    rounds=1,
    simulated=True,
    dataset="musique",
):
    config = {
        "dataset": dataset,
        "split": "report",
        "method": method,
        "llm": "simulated" if simulated else "local",
        "reader": "simulated" if simulated else "dpr",
        "backend": "embedded",
        "p": 0.3,
        "u": 0.1,
        "seed": 0,
    }
    return {
        "config": config,
        "id": qid,
        "metrics": {"cover_em": float(right), "em": float(right), "f1": float(right)},
        "rounds": rounds,
        "steps": sum(sources),
        "knowledge_sources": dict(zip(("llm", "corrected", "completed"), sources, strict=True)),
        "hops": [],
        "usage": {"llm": {"calls": 2, "words_in": 100, "words_out": 10}},
        "seconds": 0.5,
    }


def test_report_compares_runs_with_the_papers_analyses(tmp_path):
    full = tmp_path / "searchain.jsonl"
    no_ir = tmp_path / "no-ir.jsonl"
    # Without IR: q1, q2 right. With IR: q1, q3, q4 right -> helped q3, q4 (2/4), misled q2 (1/4).
    with_ir = [
        line("searchain", "q1", True, (2, 0, 0)),
        line("searchain", "q2", False, (1, 1, 0), rounds=2),
        line("searchain", "q3", True, (1, 1, 0), rounds=2),
        line("searchain", "q4", True, (0, 0, 2), rounds=3),
    ]
    for result, (cited, stated) in zip(with_ir, [(2, 1), (1, 1), (0, 0), (2, 2)], strict=True):
        result["citations"] = {"cited": cited, "stated": stated, "steps": result["steps"]}
        result["format_failures"] = []
        result["content_source"] = "model"
    with_ir[2]["content_source"] = "composed"  # the model cited nothing: searchain wrote it
    with_ir[2]["citations"]["inserted"] = 2
    with_ir[1]["format_failures"] = ["no_final_content", "no_final_answer"]
    with_ir[0]["result"] = {"question": "What is item 1?", "answer": "Thing 1", "nodes": []}
    with_ir[0] |= {"simulated": True, "answers": ["Gold 1"], "prediction": "Thing 1"}
    without = [line("searchain-no-ir", f"q{i}", i in (1, 2)) for i in range(1, 5)]
    full.write_text("".join(json.dumps(r) + "\n" for r in with_ir))
    no_ir.write_text("".join(json.dumps(r) + "\n" for r in without))
    files = write_report([full, no_ir], tmp_path / "report")
    assert [f.name for f in files] == [
        "report.md",
        "metric_by_method.png",
        "knowledge_sources.png",
        "rounds_histogram.png",
    ]
    for png in files[1:]:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = files[0].read_text()
    assert "**SIMULATED**" in md
    assert (
        "| searchain (simulated p=0.3 u=0.1) | musique | report | simulated | simulated "
        "| 4 (4% of the split) | 0.750 | 0.30–0.95 | – |" in md
    )
    assert "| searchain-no-ir (simulated p=0.3 u=0.1) | musique | report |" in md
    # 8 steps: 4 LLM, 2 corrected, 2 completed.
    assert "| searchain (simulated p=0.3 u=0.1) | 50.0% | 25.0% | 25.0% |" in md
    assert (
        "| searchain (simulated p=0.3 u=0.1) | searchain-no-ir (simulated p=0.3 u=0.1) | 4 "
        "| 50.0% | 25.0% |" in md
    )
    # Citations: 2 + 1 + 0 + 2 cited, 1 + 1 + 0 + 2 stated, 8 steps; no-IR runs cite nothing;
    # q3's content was composed, its 2 citations inserted by searchain.
    assert (
        "| searchain (simulated p=0.3 u=0.1) | lexical | 0.750 | 1.250 | 0.800 | 0.500 | 0.0% "
        "| 25.0% | 0.500 | – | – |" in md
    )
    assert "| searchain-no-ir (simulated p=0.3 u=0.1) | 0.500 |" not in md.split("## Citations")[1]
    # Format failures: 1 of 4 questions, 2 replies; no-IR lines predate the field: no row.
    replies = md.split("## Replies the parsers could not read")[1].split("##")[0]
    assert (
        "| searchain (simulated p=0.3 u=0.1) | 0.750 | 25.0% | 0.500 | no_final_answer 1, "
        "no_final_content 1 |" in replies
    )
    assert "searchain-no-ir" not in replies
    # The one result that kept its tree has its page, linked from the report, marked right.
    assert (
        "- searchain (simulated p=0.3 u=0.1): [q1 ✓](pages/searchain_simulated_p=0.3_u=0.1/q1.html)"
        in md
    )
    page = (
        tmp_path / "report" / "pages" / "searchain_simulated_p=0.3_u=0.1" / "q1.html"
    ).read_text()
    assert '<h1 id="q1-title">What is item 1?</h1>' in page and "Thing 1" in page
    # Issue 33, case 4: a simulated run's page said neither SIMULATED nor its gold answer and
    # score; read on its own, it now says all three.
    banner = page.split('<section class="banner"')[1].split("</section>")[0]
    assert "SIMULATED: a simulated LLM and/or reader answered" in banner
    assert "Run: searchain (simulated p=0.3 u=0.1), question q1." in banner
    assert "Gold answer: Gold 1; predicted (the model&#x27;s own answer): Thing 1." in banner
    assert "Scored right: cover_em 1.000, em 1.000, f1 1.000." in banner


def test_report_without_a_no_ir_run_says_so_and_refuses_nothing_to_read(tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(line("searchain", "q1", True, (1, 0, 0), simulated=False)))
    md = write_report([results], tmp_path / "out")[0].read_text()
    assert "SIMULATED" not in md and "no searchain-no-ir run to compare with" in md
    with pytest.raises(ValueError, match="does not exist"):
        write_report([tmp_path / "missing.jsonl"], tmp_path / "out")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ValueError, match="no results in"):
        write_report([tmp_path / "empty.jsonl"], tmp_path / "out")


def test_a_line_a_kill_cut_short_is_answered_again_and_left_out_of_reports(tmp_path):
    """Issue 33, case 9: a partial last line made `eval` and `report` refuse the file, though
    `--help` says "rerun to resume"."""
    out = tmp_path / "cut.jsonl"
    assert evaluate(Answerer(), RECORDS[:2], out) == 2
    whole = out.read_text()
    out.write_text(whole + whole.splitlines()[0][:40])  # a third line, cut by a kill
    md = write_report([out], tmp_path / "report")[0].read_text()
    assert f"Left out: {out} line 3, the unfinished last line" in md
    assert "| direct | musique | tune | fake | none | 2 (2% of the split) |" in md
    assert evaluate(Answerer(), RECORDS[:3], out) == 1  # q2 only; the cut line is gone
    assert ids(out) == ["q0", "q1", "q2"] and out.read_text().startswith(whole)
    # A bad line anywhere else is still refused: it is no write in progress.
    out.write_text("not json\n" + whole)
    with pytest.raises(ValueError, match="line 1 is not valid JSON"):
        evaluate(Answerer(), RECORDS[:3], out)


def test_results_written_before_k_existed_still_resume(tmp_path):
    out = tmp_path / "old.jsonl"
    assert evaluate(Answerer(), RECORDS[:2], out) == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    for line in lines:
        del line["config"]["k"]  # as an older searchain wrote them
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert evaluate(Answerer(), RECORDS[:3], out) == 1  # the two old answers count as done


def test_report_lays_runs_out_as_the_papers_tables(tmp_path):
    files = []
    for dataset, per_method in {
        "musique": {"direct": 1, "searchain-no-ir": 2, "ircot": 3, "searchain": 4},
        "hotpotqa": {"direct": 0, "ircot": 4, "react": 2},
    }.items():
        for method, right in per_method.items():
            path = tmp_path / f"{dataset}-{method}.jsonl"
            rows = [
                line(method, f"q{i}", i < right, simulated=False, dataset=dataset) for i in range(4)
            ]
            for row in rows:
                row["metrics"]["paragraph_recall"] = 0.5
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            files.append(path)
    md = write_report(files, tmp_path / "out")[0].read_text()
    table = md.split(
        "## Table 1 (SearChain): main metric by method and data set — LLM local, report"
    )[1]
    rows = [row for row in table.split("\n\n")[1].splitlines()]
    # All 20 rows of Table 1, run or not, then the methods run that it does not have.
    table1 = [m for m, method in METHODS.items() if method.table1]
    assert len(table1) == 20 and rows[:3] == [
        "| method | hotpotqa | musique |",
        "|---|---|---|",
        "| **without IR** | | |",
    ]
    assert rows[3] == "| direct | 0.000 | 0.250 |" and rows[4] == "| auto-cot | – | – |"
    assert "| searchain-no-ir | – | 0.500 |" in rows and "| searchain | – | 1.000 |" in rows
    assert rows.index("| **with IR** | | |") == 3 + 9
    assert [r.split(" | ")[0][2:] for r in rows[2:] if not r.startswith("| **")][:20] == table1
    assert rows[-3:] == [
        "| **not in Table 1** | | |",
        "| ircot | 1.000 | 0.750 |",
        "| react | 0.500 | – |",
    ]
    ircot = md.split("## IRCoT: retrieval recall and QA — LLM local, report")[1].split("\n\n")[1]
    assert "| ircot | 0.500 | 1.000 | 1.000 | 0.500 | 0.750 | 0.750 |" in ircot


def test_a_table_cell_of_several_runs_labels_each_and_marks_the_simulated(tmp_path):
    files = []
    for reader, right in (("dpr", 1), ("extractive", 2), ("simulated", 4)):
        path = tmp_path / f"searchain-{reader}.jsonl"
        rows = [line("searchain", f"q{i}", i < right, simulated=False) for i in range(4)]
        for row in rows:
            row["config"]["reader"] = reader
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        files.append(path)
    md = write_report(files, tmp_path / "out")[0].read_text()
    table = md.split("## Table 1 (SearChain)")[1].split("\n\n")[1].splitlines()
    assert (
        "| searchain | 0.250 (reader=dpr) / 0.500 (reader=extractive) / "
        "1.000 (reader=simulated, simulated) |"
    ) in table


def test_the_report_says_how_much_each_figure_rests_on(tmp_path):
    """Issue 33, case 8: a 10-question run beside a 3-question one showed no n, a run stopped
    at 4 of 5 read as complete, and no figure had an interval."""
    files = []
    for method, n, asked in (("oner", 10, 10), ("ircot", 4, 5)):
        path = tmp_path / f"{method}.jsonl"
        rows = [line(method, f"q{i}", i % 2 == 0, simulated=False) for i in range(n)]
        for row in rows:
            row["asked"] = asked
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        files.append(path)
    md = write_report(files, tmp_path / "out")[0].read_text()
    assert "— LLM local, report (n in each cell)" in md
    assert "| oner | 0.500 (n=10) |" in md and "| ircot | 0.500 (n=4) |" in md
    assert "| local | dpr | 10 (10% of the split) | 0.500 | 0.24–0.76 |" in md
    assert "| 4 (4% of the split, stopped at 4 of 5 asked) | 0.500 | 0.15–0.85 |" in md
    # One method of Table 1 compares nothing: its row, not 19 rows of holes.
    table = md.split("## Table 1 (SearChain)")[1].split("## IRCoT")[0]
    assert "19 of Table 1's 20 methods were not run." in table and "| direct |" not in table


@pytest.mark.parametrize(
    ("method", "message"),
    [
        ("react", "react takes no k"),
        ("searchain", "searchain takes no k"),
        ("direct", "direct takes no k"),
    ],
)
def test_k_only_for_methods_that_retrieve_k(method, message):
    from searchain.eval.setup import check

    with pytest.raises(ValueError, match=message) as refused:
        check(EvalSpec("musique", "tune", method, "fake", "none", "embedded", k=3))
    assert cli_line(refused.value).startswith(message.replace(" k", " --k"))
    with pytest.raises(ValueError, match=r"^k must be between 1 and 50") as refused:
        check(EvalSpec("musique", "tune", "ircot", "fake", "none", "embedded", k=0))
    assert cli_line(refused.value) == "--k must be between 1 and 50, got 0"
    check(EvalSpec("musique", "tune", "oner", "fake", "none", "embedded", k=9))


def test_every_plot_holds_its_labels_however_long_the_run_names(tmp_path):
    """Issue 42, case 8: the knowledge-sources plot's rotated run names ran off its left edge."""
    require_module("matplotlib", "eval")
    from PIL import Image

    runs = []
    for i, model in enumerate(("openai:" + "a-rather-long-model-name-" * 3, "local")):
        results = [line("searchain", f"q{j}", j % 2 == 0, (1, 1, 1)) for j in range(4)]
        for result in results:
            result["config"] |= {"llm": model, "reader": "dpr"}
        path = tmp_path / f"run{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in results))
        runs.append(path)
    files = write_report(runs, tmp_path / "report")
    for png in files[1:]:
        with Image.open(png) as image:
            rgb = image.convert("RGB")
            width, height = rgb.size
            edges = [rgb.getpixel((0, y)) for y in range(height)]
            edges += [rgb.getpixel((x, height - 1)) for x in range(width)]
        assert set(edges) == {(255, 255, 255)}, f"{png.name}: something touches its edge"
