"""`searchain calibrate` on the shared data: a tiny DPR reader built from a config, and the
offline model reading; the θ it writes is the θ the next `ask` uses and names."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import require_module
from tests.integration.test_cli import demo_index, one_line_error, searchain  # noqa: F401
from tests.tiny_models import make_dpr_reader

pytestmark = pytest.mark.integration


def env_with(shared_data, calibration) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEARCHAIN_", "OPENAI_"))}
    return env | {"SEARCHAIN_DATA_DIR": str(shared_data), "SEARCHAIN_CALIBRATION": str(calibration)}


def test_a_tiny_dpr_reader_gets_its_table_and_the_next_ask_says_which_theta(
    tmp_path,
    shared_data,
    demo_index,  # noqa: F811
):
    require_module("torch", "models")
    reader = f"dpr:{make_dpr_reader(tmp_path / 'dpr')}"
    calibration = tmp_path / "calibration.json"
    env = env_with(shared_data, calibration)
    done = searchain("calibrate", "--reader", reader, "--limit", "4", env=env)
    assert done.returncode == 0, done.stderr
    assert "confidence from" in done.stdout and "share right" in done.stdout  # the table
    assert f"calibrating the {reader} reader on musique, 2wikimultihopqa, hotpotqa tune" in (
        done.stderr
    )
    assert "AUC " in done.stderr and f"written to {calibration}" in done.stderr
    written = json.loads(calibration.read_text())["readers"][reader]
    assert written["total"] == 12 and written["target"] == 0.5
    # The reporting split checks the θ written, and writes nothing.
    before = calibration.read_text()
    checked = searchain(
        "calibrate", "--reader", reader, "--limit", "4", "--split", "report", env=env
    )
    assert checked.returncode == 0, checked.stderr
    assert calibration.read_text() == before and "written to" not in checked.stderr
    # A random reader carries no signal: the run says so and corrects nothing.
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"chains": ["[Query 1]: Who influenced him?\n[Answer 1]: X"]}))
    asked = searchain(
        "ask", "Who influenced Lorenzo Monaco?", "--index", str(demo_index), "--reader", reader,
        "--llm", f"scripted:{script}", "--db", str(tmp_path / "t.db"), "--r-max", "1", env=env,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    line = next(x for x in asked.stderr.splitlines() if x.startswith("θ"))
    if written["theta"] is None:
        assert "reader's confidence carries no signal" in line or "reached precision" in line
    else:
        assert line.startswith(f"θ = {written['theta']:.4g} for the {reader} reader")


def test_the_offline_reader_is_measured_and_a_report_needs_a_tuning_first(
    tmp_path, shared_data, local_llm_available
):
    calibration = tmp_path / "calibration.json"
    env = env_with(shared_data, calibration)
    refused = searchain("calibrate", "--reader", "llm", "--llm", "local", "--split", "report",
                        env=env)  # fmt: skip
    one_line_error(refused, "holds no calibration of the llm:local sha256:", "--split tune first")
    done = searchain("calibrate", "--reader", "llm", "--llm", "local", "--limit", "2", env=env)
    assert done.returncode == 0, done.stderr
    (name,) = json.loads(calibration.read_text())["readers"]
    assert name.startswith("llm:local sha256:")
    png = tmp_path / "r.png"
    other = str(tmp_path / "other.json")
    drawn = searchain("calibrate", "--reader", "llm", "--llm", "local", "--limit", "1",
                      "--png", str(png), "--out", other, env=env)  # fmt: skip
    assert drawn.returncode == 0, drawn.stderr
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--split", "all"], "--split 'all': use tune or report"),
        (["--precision", "0"], "--precision 0.0: give a share between 0 and 1"),
        (["--limit", "0"], "--limit 0: read at least one sub-question"),
        (["--reader", "bert"], "unknown reader 'bert'"),
    ],
)
def test_bad_options_are_one_line(tmp_path, shared_data, args, fragment):
    done = searchain("calibrate", *args, env=env_with(shared_data, tmp_path / "c.json"))
    one_line_error(done, fragment)


def test_an_out_that_is_a_folder_or_in_no_folder_is_refused_before_reading(tmp_path, shared_data):
    env = env_with(shared_data, tmp_path / "c.json")
    for out, fragment in ((tmp_path, "is a directory"), (tmp_path / "no" / "c.json", "--out")):
        done = searchain("calibrate", "--reader", "llm", "--llm", "local", "--out", str(out),
                         env=env)  # fmt: skip
        one_line_error(done, fragment)
        assert "calibrating" not in done.stderr  # nothing was read
