"""A person chats with searchain in LangChain's real Agent Chat UI, in headless Chromium.

Agent Chat UI (``../shared/peers/agent-chat-ui.tar.gz``, unchanged but for its font; built and
started by ``scripts/chat.sh``) against (a) ``langgraph dev`` and (b) the team server with API
keys: a question is answered with its citations and references; a follow-up in the same thread
is answered; the thread list shows earlier threads and a reload shows the whole conversation;
with ``approve_corrections`` one correction is approved and another rejected from the UI, and
the answer is re-planned; a second user's key sees none of the first's threads; a PDF attached
with "Upload PDF or Image" is searched and cited to its page, in its thread and for its user
only. Each state is saved as a screenshot in ``SEARCHAIN_SCREENSHOTS`` (docs/chat/ holds the
ones made with ``SEARCHAIN_SCREENSHOTS=docs/chat``), else in the test's scratch directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.browser import activity, chromium
from tests.conftest import ROOT, require
from tests.documents import PAINTERS, pdf_bytes
from tests.integration.test_cli import searchain
from tests.server import CORRECTIONS, KEYS, langgraph_dev, write_script

CHAT = str(ROOT / "scripts" / "chat.sh")
TARBALL = Path(os.environ.get("CHAT_UI_TARBALL", ROOT.parent / "shared/peers/agent-chat-ui.tar.gz"))
QUESTION = "Who influenced Lorenzo Monaco?"
FOLLOW = "Where was Lorenzo Monaco born?"
BOB = "Which painter influenced Lorenzo Monaco?"
WAIT = 180
"""Seconds to wait for the page to show what a step brings (generous: a busy machine)."""
BOX = 'textarea[placeholder="Type your message..."]'
"""The chat's message box (the page's other textareas are an interrupt's fields)."""
PROMPT_MARKS = ("[Query 1]", "Construct a global reasoning chain", "[Final Content]")
"""Text of the LLM's own conversation, which the person never sees."""
REASON = "textarea[placeholder^='Share feedback']"
"""The interrupt form's field for a rejection's reason."""
SUBMIT_REJECTION = """
const [css, reason] = arguments;
const field = document.querySelector(css);
const button = [...document.querySelectorAll("button")].find(
  (b) => b.innerText.trim() === "Submit rejection");
if (!field || field.value !== reason || !button
    || !document.body.innerText.includes("Currently selected: Reject")) return false;
button.click();
return true;
"""
"""Submit the rejection if the form holds ``reason`` with "Reject" selected (one browser task)."""
CLICK = """
const button = [...document.querySelectorAll("button")].find(
  (b) => b.innerText.trim() === arguments[0]);
if (button) button.click();
return Boolean(button);
"""
"""Click the button labelled ``arguments[0]`` if the page has one (one browser task)."""


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """``langgraph dev`` answering with scripts (``work/corrections.json`` among them)."""
    work = tmp_path_factory.mktemp("chat-dev")
    assert searchain("index", "--demo", "--index", str(work / "index")).returncode == 0
    env = {
        "SEARCHAIN_INDEX": str(work / "index"),
        "SEARCHAIN_LLM": f"scripted:{write_script(work / 'script.json')}",
        "SEARCHAIN_READER": "llm",
    }
    write_script(work / "corrections.json", **CORRECTIONS)
    yield from langgraph_dev(work, env)


@pytest.fixture(scope="module")
def chat_ui(dev_server, tmp_path_factory) -> Iterator[str]:
    """Agent Chat UI's base URL, started by scripts/chat.sh (built once per source).

    The pinned tarball by default; ``SEARCHAIN_TEST_CHAT_UI_SOURCE=npm`` drives the copy a user
    without it gets from the npm registry instead.
    """
    npm = os.environ.get("SEARCHAIN_TEST_CHAT_UI_SOURCE") == "npm"
    require(npm or TARBALL.is_file(), f"no Agent Chat UI at {TARBALL}: set CHAT_UI_TARBALL")
    require(shutil.which("npm") is not None, "no npm: install Node.js (>= 20) and npm")
    source = "/nonexistent/agent-chat-ui.tar.gz" if npm else str(TARBALL)
    env = {**os.environ, "CHAT_UI_STATE": str(tmp_path_factory.mktemp("chat-ui")),
           "CHAT_UI_TARBALL": source}  # fmt: skip
    started = subprocess.run(
        [CHAT, "start", dev_server[0]], env=env, capture_output=True, text=True, timeout=1200
    )
    assert started.returncode == 0, started.stderr[-3000:]
    url = started.stdout.strip().splitlines()[-1]
    assert "apiUrl=" in url and "assistantId=searchain" in url
    yield url.split("/?")[0]
    subprocess.run([CHAT, "stop"], env=env, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where the screenshots go (``SEARCHAIN_SCREENSHOTS``, else a scratch directory)."""
    chosen = os.environ.get("SEARCHAIN_SCREENSHOTS")
    return Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")


@dataclass
class Chat:
    """One person's browser on Agent Chat UI."""

    driver: Any
    base: str
    shots: Path

    def open(self, api_url: str, assistant: str, **params: str) -> None:
        query = urllib.parse.urlencode({"apiUrl": api_url, "assistantId": assistant, **params})
        self.driver.get(f"{self.base}/?{query}")
        self.wait_for_element(BOX)

    def sign_in(self, api_url: str, assistant: str, key: str) -> None:
        """The UI's own set-up form, as a team member fills it in: server, assistant, key."""
        from selenium.webdriver.common.by import By

        self.driver.get(f"{self.base}/?{urllib.parse.urlencode({'apiUrl': api_url})}")
        self.wait_for_element("input#assistantId")
        for field, value in (("assistantId", assistant), ("apiKey", key)):
            element = self.driver.find_element(By.ID, field)
            element.clear()
            element.send_keys(value)
        self.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        self.wait_for_element(BOX)

    def ask(self, question: str) -> None:
        """Type ``question`` and send it; Enter again until the box is emptied and the
        conversation shows it.

        Agent Chat UI ignores Enter while it still counts the last run as loading (on a busy
        machine, a moment after its answer shows): the question would sit in the box unsent.
        The page's text alone cannot tell: React writes a textarea's value into its text too
        (its default value), so a question still in the box reads as one in the conversation.
        The UI empties the box only when it sends. The box is found by its placeholder: an
        interrupt's form has textareas of its own, holding values.
        """
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        shown = self.text().count(question)
        box = self.driver.find_element(By.CSS_SELECTOR, BOX)
        box.send_keys(question)
        box.send_keys(Keys.ENTER)

        def sent(text: str) -> bool:
            box = self.driver.find_element(By.CSS_SELECTOR, BOX)
            if box.get_attribute("value"):
                box.send_keys(Keys.ENTER)
                return False
            return text.count(question) > shown

        self.wait_until(sent, f"the question {question!r} was never sent")

    def reject(self, reason: str) -> None:
        """Type ``reason`` in the open interrupt's form and submit it as a rejection.

        Agent Chat UI resets the form each time it reads the interrupt again (it refetches the
        thread's history when a run ends), dropping a reason typed before that: so the reason
        is typed again until the form holds it with "Reject" selected, and the form is checked
        and submitted in one browser task, which no re-render can come between.
        """
        from selenium.webdriver.common.by import By

        def submitted(_: str) -> bool:
            field = self.driver.find_element(By.CSS_SELECTOR, REASON)
            if field.get_attribute("value") != reason:
                field.clear()
                field.send_keys(reason)
            return bool(self.driver.execute_script(SUBMIT_REJECTION, REASON, reason))

        self.wait_until(submitted, "the rejection was not submitted")

    def text(self) -> str:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.TAG_NAME, "body").text

    def wait_until(self, condition, what: str) -> None:
        """Wait for ``condition(page text)``; else fail with the page, its console and requests."""
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            WebDriverWait(self.driver, WAIT, poll_frequency=0.25).until(
                lambda _: condition(self.text())
            )
        except TimeoutException:
            pytest.fail(
                f"{what}; the page shows:\n{self.text()}\n"
                f"its console and requests to the server:\n{self.activity()}"
            )

    def activity(self) -> str:
        """The page's console and its requests to the API server it was opened on."""
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.driver.current_url).query)
        return activity(self.driver, hosts=tuple(query.get("apiUrl", ())))

    def wait_for_element(self, css: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, WAIT).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
        )

    def answers(self) -> int:
        return self.text().count("Answer: ")

    def click(self, label: str) -> None:
        """Click the button labelled ``label`` once it is drawn.

        Found and clicked in one browser task: a re-render between finding a button and
        reading or clicking it would leave a stale element in hand.
        """
        self.wait_until(
            lambda _: bool(self.driver.execute_script(CLICK, label)), f"no {label!r} button"
        )

    def shot(self, name: str) -> Path:
        """A screenshot of the page as it is, which shows something (not one flat colour)."""
        from PIL import Image

        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        with Image.open(path) as image:
            assert image.convert("L").getextrema()[0] < 128, f"{path} is blank"
        return path

    def thread_id(self) -> str:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.driver.current_url).query)
        return query["threadId"][0]


def never_internal(text: str) -> str:
    assert not [mark for mark in PROMPT_MARKS if mark in text], text
    return text


@pytest.fixture
def chat(chat_ui, shots, tmp_path) -> Iterator[Chat]:
    for driver in chromium(tmp_path / "profile", width=1400, height=1000):
        yield Chat(driver, chat_ui, shots)


def converse(chat: Chat, name: str) -> str:
    """Ask, see the answer; ask a follow-up, see it; reload, see both: the thread's id."""
    chat.ask(QUESTION)
    chat.wait_until(lambda t: "References" in t and chat.answers() == 1, "no answer")
    text = never_internal(chat.text())
    assert "Answer: Giotto" in text and "influenced by Giotto [1]" in text
    assert "[1] Lorenzo Monaco: “" in text and "states the step's answer" in text
    chat.shot(f"{name}-answer")
    chat.ask(FOLLOW)
    chat.wait_until(lambda t: chat.answers() == 2, "no answer to the follow-up")
    thread = chat.thread_id()
    chat.driver.refresh()  # the whole conversation comes back from the server
    chat.wait_until(lambda t: chat.answers() == 2 and FOLLOW in t, "the reload lost turns")
    text = never_internal(chat.text())
    assert text.index(QUESTION) < text.index(FOLLOW)
    chat.shot(f"{name}-follow-up")
    return thread


def decide(chat: Chat, name: str) -> None:
    """Approve the first correction, reject the second with a reason; see the re-planned answer."""
    chat.ask(QUESTION)
    chat.wait_until(lambda t: "Submit rejection" in t and "Cimabue" in t, "no first correction")
    chat.shot(f"{name}-correction")
    chat.click("Approve")
    chat.wait_until(
        lambda t: "Where was Lorenzo Monaco born?" in t and "Submit rejection" in t,
        "no second correction",
    )
    assert "corrected, the model re-plans" in chat.text()  # the progress so far
    chat.reject("The passage says he was born in Siena.")
    chat.wait_until(lambda t: "References" in t and "Answer: Giotto" in t, "no re-planned answer")
    text = never_internal(chat.text())
    assert "Who influenced Lorenzo Monaco? → Giotto (corrected from the passage)" in text
    assert (
        "Where was Lorenzo Monaco born? → Siena (the model's answer, kept by a person over the "
        "passage's Florence)" in text
    )
    chat.shot(f"{name}-decided")


def test_on_langgraph_dev(chat, dev_server):
    from langgraph_sdk import get_sync_client

    dev_server, work = dev_server
    chat.open(dev_server, "searchain")
    thread = converse(chat, "dev")
    chat.open(dev_server, "searchain", chatHistoryOpen="true")
    chat.wait_until(lambda t: "Thread History" in t and QUESTION in t, "no thread in the list")
    chat.shot("dev-threads")

    client = get_sync_client(url=dev_server)
    values = client.threads.get_state(thread)["values"]
    assert [m["type"] for m in values["messages"]] == ["human", "ai", "human", "ai"]
    assistant = client.assistants.create(
        "searchain",
        context={"approve_corrections": True, "llm": f"scripted:{work / 'corrections.json'}"},
        name="searchain, corrections approved",
    )
    chat.open(dev_server, assistant["assistant_id"])
    decide(chat, "dev")
    nodes = client.threads.get_state(chat.thread_id())["values"]["nodes"]
    assert [(n["source"], n["rejected"]) for n in nodes] == [("corrected", ""), ("llm", "Florence")]


@pytest.fixture
def other_browser(tmp_path) -> Iterator[Any]:
    """A second person's browser: its own profile, so its own stored key."""
    yield from chromium(tmp_path / "other", width=1400, height=1000)


def test_on_the_team_server(chat, deployment, chat_ui, other_browser, shots):
    chat.sign_in(deployment.url, "searchain", KEYS["alice"])
    first = converse(chat, "team")
    alice = deployment.client("alice")
    assistant = alice.assistants.create(
        "searchain", context={"approve_corrections": True, "llm": "corrections"}
    )
    chat.open(deployment.url, assistant["assistant_id"])
    decide(chat, "team")
    second = chat.thread_id()
    # Aegra's thread search returns no values, so the UI names each thread by its id.
    chat.open(deployment.url, "searchain", chatHistoryOpen="true")
    chat.wait_until(lambda t: first in t, "alice's first thread is not listed")
    chat.shot("team-threads")

    # Bob, in his own browser with his own key, sees his thread and none of Alice's.
    bob = Chat(other_browser, chat_ui, shots)
    bob.sign_in(deployment.url, "searchain", KEYS["bob"])
    bob.ask(BOB)
    bob.wait_until(lambda t: "References" in t, "no answer for bob")
    own = bob.thread_id()
    bob.open(deployment.url, "searchain", chatHistoryOpen="true")
    bob.wait_until(lambda t: own in t, "bob's thread is not listed")
    assert first not in bob.text() and second not in bob.text()
    bob.shot("team-other-user")


def upload_and_ask(chat: Chat, folder: Path, name: str) -> None:
    """Attach painters.pdf with the UI's "Upload PDF or Image" and ask about it: cited to p. 3."""
    from selenium.webdriver.common.by import By

    pdf = folder / "painters.pdf"
    pdf.write_bytes(pdf_bytes(PAINTERS, title="Painters of Florence", scanned=[1]))
    chat.driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(pdf))
    chat.wait_until(lambda t: "painters.pdf" in t, "the PDF is not shown as attached")
    chat.ask(QUESTION)
    chat.wait_until(lambda t: "References" in t and chat.answers() == 1, "no answer")
    text = never_internal(chat.text())
    assert "[1] Painters of Florence (painters.pdf, p. 3): “" in text, text
    assert "read painters.pdf: 3 pages, 2 passages" not in text  # progress, replaced by the answer
    chat.shot(f"{name}-upload")


def test_a_pdf_uploaded_on_langgraph_dev_is_cited_to_its_page(chat, dev_server, tmp_path):
    chat.open(dev_server[0], "searchain")
    upload_and_ask(chat, tmp_path, "dev")
    chat.open(dev_server[0], "searchain")  # a new thread: the file was the other thread's
    chat.ask(QUESTION)
    chat.wait_until(lambda t: "References" in t and chat.answers() == 1, "no answer")
    assert "painters.pdf" not in chat.text() and "[1] Lorenzo Monaco" in chat.text()


def test_a_pdf_uploaded_on_the_team_server_is_its_users_alone(
    chat, deployment, chat_ui, other_browser, shots, tmp_path
):
    chat.sign_in(deployment.url, "searchain", KEYS["alice"])
    upload_and_ask(chat, tmp_path, "team")
    bob = Chat(other_browser, chat_ui, shots)
    bob.sign_in(deployment.url, "searchain", KEYS["bob"])
    bob.ask(QUESTION)
    bob.wait_until(lambda t: "References" in t, "no answer for bob")
    assert "painters.pdf" not in bob.text() and "[1] Lorenzo Monaco" in bob.text()


def test_without_the_tarball_its_source_comes_from_the_npm_registry(tmp_path):
    """docs/chat.md's chat.sh needed ../shared/peers/agent-chat-ui.tar.gz, which a user of a
    public checkout does not have: it now fetches Agent Chat UI the way a user can (the build
    that follows is the tarball's own path, which the tests above drive)."""
    env = {**os.environ, "CHAT_UI_TARBALL": str(tmp_path / "no-such.tar.gz")}
    done = subprocess.run(
        [CHAT, "source", str(tmp_path / "src")], env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "fetching create-agent-chat-app@0.1.6 from the npm registry" in done.stderr
    package = json.loads((tmp_path / "src" / "package.json").read_text())
    assert (
        "next" in package["devDependencies"] | package["dependencies"]
        and "@langchain/langgraph-sdk" in package["dependencies"]
    )
    assert (
        'useQueryState("apiUrl")'
        in (tmp_path / "src" / "src" / "providers" / "Thread.tsx").read_text()
    )
