"""The scripted stand-in model's hold: a test stops a run inside a chosen call, then releases."""

import json
import threading

import pytest

from searchain.tools.llms.scripted import ScriptedChatModel


def test_calls_from_hold_from_on_wait_for_the_release_file(tmp_path):
    log, release = tmp_path / "calls.log", tmp_path / "release"
    model = ScriptedChatModel(chains=["x"], log=str(log), hold_from=2, release=str(release))
    assert model.invoke("first").text == "x"  # call 1 is before the hold
    replies = []
    second = threading.Thread(target=lambda: replies.append(model.invoke("second").text))
    second.start()
    while len(log.read_text().splitlines()) < 2:  # call 2 is logged, then held
        second.join(0.05)
    second.join(0.5)
    assert second.is_alive() and replies == []  # held: it cannot return before the release
    release.touch()
    second.join(60)
    assert replies == ["x"]
    assert model.invoke("third").text == "x"  # released: later calls go straight on
    assert [json.loads(line)["kind"] for line in log.read_text().splitlines()] == ["chain"] * 3


def test_a_hold_without_its_files_is_refused(tmp_path):
    model = ScriptedChatModel(chains=["x"], hold_from=1)
    with pytest.raises(ValueError, match="hold_from needs log and release"):
        model.invoke("q")
