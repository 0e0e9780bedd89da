"""Files sent in the chat on the team server (issue 43): owned by the thread's user, bounded.

The deployment (tests/server.py) lets a user's threads hold 3 files. Driven by the real
langgraph-sdk client; Agent Chat UI's upload is tested in tests/integration/test_chat_ui.py.
"""

from __future__ import annotations

import base64

import pytest

from tests.documents import PAINTERS, pdf_bytes
from tests.integration.test_server import mcp_session, status_of
from tests.server import KEYS, QUESTION

pytestmark = pytest.mark.integration

PDF = pdf_bytes(PAINTERS, title="Painters of Florence", scanned=[1])


def block(data: bytes, name: str, mime: str = "application/pdf") -> dict:
    """Agent Chat UI's shape of a file in a message."""
    encoded = base64.b64encode(data).decode()
    return {"type": "file", "mimeType": mime, "data": encoded, "metadata": {"filename": name}}


def asked(*files: dict, question: str = QUESTION) -> dict:
    return {"messages": [{"role": "user", "content": [{"type": "text", "text": question}, *files]}]}


def refusal(call) -> tuple[int, str]:
    import httpx

    try:
        call()
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code, exc.response.text
    return 0, ""


def test_a_pdf_sent_in_a_thread_is_cited_to_its_page_and_no_one_else_retrieves_it(deployment):
    erin, bob = fresh(deployment), deployment.client("bob")
    thread = erin.threads.create()["thread_id"]
    out = erin.runs.wait(thread, "searchain", input=asked(block(PDF, "painters.pdf")))
    [reference] = out["references"]
    assert reference["id"] == "painters.pdf#2" and reference["source"]["page"] == 3
    assert "(painters.pdf, p. 3)" in out["messages"][-1]["content"]
    values = erin.threads.get_state(thread)["values"]
    assert [(u["name"], u["pages"]) for u in values["uploads"]] == [("painters.pdf", 3)]
    # Bob asks the same question on his own thread: the index answers, never Erin's file.
    own = bob.threads.create()["thread_id"]
    mine = bob.runs.wait(own, "searchain", input={"question": QUESTION})
    assert mine["references"] and "painters.pdf" not in str(mine)
    stateless = bob.runs.wait(None, "searchain", input={"question": QUESTION})
    assert "painters.pdf" not in str(stateless)
    assert status_of(lambda: bob.threads.get_state(thread)) == 404
    erin.threads.delete(thread)
    assert status_of(lambda: erin.threads.get_state(thread)) == 404  # the files with it


def fresh(deployment):
    """Erin's client, her threads (and so her files) from earlier tests deleted."""
    erin = deployment.client("erin")
    for thread in erin.threads.search(limit=100):
        erin.threads.delete(thread["thread_id"])
    return erin


def test_a_users_threads_hold_at_most_the_deployments_bound_of_files(deployment):
    erin = fresh(deployment)
    notes = [block(f"Note {i} on Giotto.".encode(), f"n{i}.txt", "text/plain") for i in range(4)]
    first = erin.threads.create()["thread_id"]
    erin.runs.wait(first, "searchain", input=asked(notes[0], notes[1]))
    erin.runs.wait(first, "searchain", input=asked(notes[0]))  # held already: counts once
    second = erin.threads.create()["thread_id"]
    status, body = refusal(
        lambda: erin.runs.wait(second, "searchain", input=asked(notes[2], notes[3]))
    )
    assert status == 403
    assert "erin's threads hold 2 files and this message sends 2 more, over the 3 one user" in body
    assert "SEARCHAIN_UPLOADS_PER_USER" in body
    assert erin.runs.list(second) == []  # refused before any run
    erin.runs.wait(second, "searchain", input=asked(notes[2]))  # the bound itself is allowed
    erin.threads.delete(first)  # frees its two files' places at once
    erin.runs.wait(second, "searchain", input=asked(notes[3], block(PDF, "painters.pdf")))
    uploads = erin.threads.get_state(second)["values"]["uploads"]
    assert [u["name"] for u in uploads] == ["n2.txt", "n3.txt", "painters.pdf"]


@pytest.mark.parametrize(
    ("file", "status", "said"),
    [
        ({"type": "image", "mimeType": "image/png", "data": "iVBO", "metadata": {"name": "a.png"}},
         400, "a.png is an 'image' block (an image: searchain does no OCR)"),
        ({"type": "file", "source_type": "url", "url": "http://127.0.0.1:1/a.pdf"}, 400,
         "sent by URL or file id"),
        (block(b"x" * (21 << 20), "big.txt", "text/plain"), 400,
         "big.txt is 21.0 MiB, over this server's bound of 20 MiB a file"),
    ],
    ids=["image", "url", "over-size"],
)  # fmt: skip
def test_a_file_the_server_does_not_take_is_refused_before_any_run(deployment, file, status, said):
    erin = fresh(deployment)
    thread = erin.threads.create()["thread_id"]
    got, body = refusal(lambda: erin.runs.wait(thread, "searchain", input=asked(file)))
    assert (got, said in body) == (status, True), body
    assert erin.runs.list(thread) == []
    got, body = refusal(
        lambda: erin.runs.wait(
            thread, "searchain", input={"question": QUESTION}, context={"uploads_per_user": 1000}
        )
    )
    assert got == 400 and "uploads_per_user" in body


def test_a_pdf_the_graph_cannot_read_fails_the_run_in_one_line(deployment):
    erin = fresh(deployment)
    thread = erin.threads.create()["thread_id"]
    torn = block(PDF[: len(PDF) // 3], "torn.pdf")
    with pytest.raises(Exception, match=r"^\w+: torn.pdf cannot be read: not a readable PDF"):
        erin.runs.wait(thread, "searchain", input=asked(torn))
    assert [r["status"] for r in erin.runs.list(thread)] == ["error"]
    state = erin.threads.get_state(thread)["values"]
    assert state.get("uploads", []) == []


def test_a_docx_bomb_in_the_chat_costs_the_worker_nothing_and_fails_in_one_line(deployment):
    """Issue 67, case 1: a 191 KiB DOCX of empty paragraphs took a worker from 312 MiB to 3 GiB
    and kept a core busy after its run was cancelled. It is read in a process of its own now,
    within 512 MiB: the run fails naming the budget, the worker's memory stays where it was, and
    no reading process is left."""
    from tests.documents import docx_body
    from tests.integration.test_server_hostile import worker_memory

    bomb = docx_body(b"<w:p/>" * (40 << 20))  # 240 MiB of XML, under the 256 MiB unpacked bound
    assert len(bomb) < 400 << 10
    erin = fresh(deployment)
    thread = erin.threads.create()["thread_id"]
    before = worker_memory(deployment)
    sent = block(bomb, "bomb.docx", DOCX)
    with pytest.raises(
        Exception, match=r"^\w+: bomb.docx cannot be read: over the reading budget of 512 MiB"
    ):
        erin.runs.wait(thread, "searchain", input=asked(sent))
    assert worker_memory(deployment) - before < 128 << 20
    assert readers_running() == []
    assert erin.threads.get_state(thread)["values"].get("uploads", []) == []


DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def test_cancelling_a_run_kills_the_process_reading_its_file_at_once(deployment):
    """Issue 67, case 1: after a cancel the worker burned 15 s of CPU in the next 20 s, and the
    run's place in the fair share was free while the read went on. The reading process is
    stopped here (SIGSTOP) so it can end no other way before its 140 s deadline: the cancel
    alone must kill it."""
    import io
    import os
    import signal
    import zipfile

    from tests.documents import docx_body

    packed = io.BytesIO(docx_body(b"<w:p/>" * 100_000))
    with zipfile.ZipFile(packed, "a") as more:  # 3 MiB of bytes that do not deflate: a budget
        more.writestr("word/media/pad.bin", os.urandom(3 << 20), zipfile.ZIP_STORED)  # of 65 s
    erin = fresh(deployment)
    thread = erin.threads.create()["thread_id"]
    run = erin.runs.create(
        thread, "searchain", input=asked(block(packed.getvalue(), "long.docx", DOCX))
    )
    reading = wait_for(lambda: readers_running() or None)
    for pid in reading:
        os.kill(pid, signal.SIGSTOP)
    erin.runs.cancel(thread, run["run_id"])
    assert wait_for(lambda: not any(pid in readers_running() for pid in reading) or None)
    status = wait_for(
        lambda: erin.runs.get(thread, run["run_id"])["status"] in ("interrupted", "error") or None
    )
    assert status and readers_running() == []


def wait_for(check, tries: int = 600):
    """What ``check`` returns once it is truthy, asked every 0.1 s (at most a minute)."""
    import threading

    pause = threading.Event()
    for _ in range(tries):
        found = check()
        if found:
            return found
        pause.wait(0.1)
    return None


def readers_running() -> list[int]:
    """The pids of reading processes alive (``python -m searchain.documents.child``)."""
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"searchain.documents.child" in command:
            found.append(int(proc.name))
    return found


def test_mcp_clients_send_files_with_the_question(deployment):
    fresh(deployment)
    pdf = {"name": "painters.pdf", "mime_type": "application/pdf",
           "data": base64.b64encode(PDF).decode()}  # fmt: skip

    async def work(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        answer = await client.call_tool("searchain", {"question": QUESTION, "files": [pdf]})
        image = {**pdf, "name": "a.png", "mime_type": "image/png"}
        refused = await client.call_tool("ircot", {"question": QUESTION, "files": [image]})
        extra = await client.call_tool(
            "searchain", {"question": QUESTION, "files": [{**pdf, "url": "http://x"}]}
        )
        return tools, answer, refused, extra

    tools, answer, refused, extra = mcp_session(deployment.url, {"x-api-key": KEYS["erin"]}, work)
    assert "files" in tools["searchain"].input_schema["properties"]
    assert "Optional `files`" in tools["ircot"].description
    assert not answer.is_error, answer.content[0].text
    [reference] = answer.structured_content["references"]
    assert reference["id"] == "painters.pdf#2" and reference["source"]["page"] == 3
    assert "(painters.pdf, p. 3)" in answer.content[0].text
    assert refused.is_error
    [line] = refused.content[0].text.splitlines()
    assert "refused (400): a.png is image/png: searchain reads files of type PDF" in line
    assert extra.is_error and "url" in extra.content[0].text
    # The run was stateless: its thread, and so its file, went when it ended.
    assert deployment.client("erin").threads.search(limit=100) == []


def test_files_added_by_a_state_update_or_a_command_count_the_same(deployment):
    """The neighbours of a run's input: messages written into a thread by a state update or a
    run's command are read by the thread's next run, so their files count against the bound."""
    erin = fresh(deployment)
    notes = [block(f"Note {i} on Giotto.".encode(), f"s{i}.txt", "text/plain") for i in range(4)]
    thread = erin.threads.create()["thread_id"]
    erin.runs.wait(thread, "searchain", input=asked(notes[0], notes[1]))
    human = {"type": "human", "content": [{"type": "text", "text": QUESTION}, notes[2], notes[3]]}
    for name, call in {
        "state update": lambda: erin.threads.update_state(thread, {"messages": [human]}),
        "command": lambda: erin.runs.wait(
            thread, "searchain", command={"update": {"messages": [human]}}
        ),
        "command pairs": lambda: erin.runs.wait(
            thread, "searchain", command={"update": [["messages", [human]]]}
        ),
        "stateless": lambda: erin.runs.wait(None, "searchain", input={"messages": [human]}),
    }.items():
        status, body = refusal(call)
        assert status == 403 and "SEARCHAIN_UPLOADS_PER_USER" in body, (name, status, body)
    erin.threads.update_state(thread, {"messages": [{**human, "content": human["content"][:2]}]})
    erin.runs.wait(thread, "searchain", input={})  # the state update's question, its file
    uploads = erin.threads.get_state(thread)["values"]["uploads"]
    assert [u["name"] for u in uploads] == ["s0.txt", "s1.txt", "s2.txt"]
