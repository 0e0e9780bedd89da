"""Every place a request to the team server can add messages is read for the files they send."""

from __future__ import annotations

import pytest

from tests.conftest import require_module

FILE = {"type": "text-plain", "text": "Giotto taught Taddeo Gaddi.", "title": "notes.txt"}
HUMAN = {"type": "human", "content": [{"type": "text", "text": "Who?"}, FILE]}


@pytest.mark.parametrize(
    "request_",
    [
        {"input": {"messages": [HUMAN]}},
        {"input": {"messages": HUMAN}},  # one message, not a list
        {"input": {"messages": [["user", HUMAN["content"]]]}},  # a (role, content) pair
        {"input": {"messages": [("user", HUMAN["content"])]}},
        {"values": {"messages": [HUMAN]}},
        {"values": [{"messages": [HUMAN]}, {"settings": {}}]},
        {"command": {"update": {"messages": [HUMAN]}}},
        {"command": {"update": [["messages", [HUMAN]]]}},
        {"command": {"update": [["messages", HUMAN]]}},
    ],
    ids=["input", "single", "pair-list", "pair-tuple", "values", "values-list", "command",
         "command-pairs", "command-pair-single"],
)  # fmt: skip
def test_each_carrier_of_messages_is_read_for_files(request_):
    require_module("langgraph_sdk", "studio")
    from searchain.server.uploads import requested_files

    [sent] = requested_files(request_)
    assert (sent.name, sent.fmt) == ("notes.txt", "text")


def test_text_only_requests_and_other_shapes_send_no_files():
    require_module("langgraph_sdk", "studio")
    from searchain.server.uploads import requested_files

    for request_ in [
        {},
        {"input": {"question": "Who?"}},
        {"input": {"messages": [{"type": "human", "content": "Who?"}]}},
        {"input": {"messages": [["user", "Who?"]]}},
        {"input": "not an object"},
        {"command": {"resume": True}},
        {"values": {"settings": {"r_max": 2}}},
    ]:
        assert requested_files(request_) == [], request_
    with pytest.raises(ValueError, match="is an 'image' block"):
        image = {"type": "image", "mimeType": "image/png", "data": "iVBO"}
        requested_files({"input": {"messages": [["user", [image]]]}})
