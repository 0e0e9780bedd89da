"""``scripted:FILE.json`` — a stand-in chat model that replays a script, for offline runs.

No capable LLM runs on a machine without a GPU or an API key, yet the checkpointing, Studio and
CLI paths need one that behaves like a model across processes. This one is stateless: the reply is
chosen from the conversation itself (the n-th Chain-of-Query reply is ``chains[n]``), so a resumed
run in a new process continues the script where the checkpoint left it. It is a test and demo
device, and says so in its name; it answers nothing it was not told to.

The script file: ``{"chains": [...], "trace": "...", "reader": "...", "rules": [[REGEX, REPLY]],
"delay": 0, "log": "path", "barrier": 0, "barrier_dir": "path", "hold_from": 0, "release":
"path"}``; ``rules`` (optional) answer any prompt whose last 300 characters match REGEX with
REPLY, first match first (how the baselines' prompts, told apart by how they end, are scripted).
A reply ends where a stop sequence of the call begins, as a real model's does. ``log``
(optional) gets one JSON line per call (its kind, index and process id), ``delay`` seconds are
slept per call, and with ``barrier`` N each first chain call waits until N of them have started
(in any process) — proof that runs really run side by side, with no clock involved. With
``hold_from`` N, the N-th logged call and every one after it wait until the file ``release``
exists: a test can stop a run while it is certainly inside call N (or its checkpoint before it),
then release the calls of the resumed run.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

TRACE_MARK = "Write the final content"
READER_MARK = "Read the passage"


class ScriptedChatModel(BaseChatModel):
    """Replays ``chains`` for Chain-of-Query calls, ``trace`` for Trace, ``reader`` for reading."""

    chains: list[str] = Field(default_factory=list)
    """The n-th reply of a question's Chain-of-Query conversation (the last one repeats)."""
    trace: str = "So the final answer is unknown."
    """Reply to the Trace prompt."""
    reader: str = "Answer: none\nConfidence: 0"
    """Reply to the ``llm`` reader's prompt."""
    rules: list[tuple[str, str]] = Field(default_factory=list)
    """``(regex, reply)``: a prompt whose end matches ``regex`` gets ``reply`` (checked first)."""
    delay: float = 0.0
    """Seconds to sleep per call (to make runs slow enough to interrupt in tests)."""
    log: str | None = None
    """File that gets one JSON line per call: ``{"kind", "index"}``."""
    barrier: int = 0
    """First chain calls wait until this many have started (0: no waiting)."""
    barrier_dir: str | None = None
    """Directory through which the calls of ``barrier`` count each other."""
    hold_from: int = 0
    """With ``log``: the call logged as this number (from 1) and later ones wait for ``release``."""
    release: str | None = None
    """The file whose existence lets the held calls go on."""
    barrier_timeout: float = 300.0
    """Seconds to wait for the others, or for ``release``, before failing."""

    @classmethod
    def from_file(cls, path: str) -> ScriptedChatModel:
        """Load a script file (see the module docstring)."""
        try:
            script = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(**script)
        except (OSError, json.JSONDecodeError, TypeError, ValueError) as exc:
            raise ValueError(f"scripted LLM: cannot use {path}: {exc}") from None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        first = messages[0].text if messages else ""
        tail = messages[-1].text[-300:] if messages else ""
        rule = next((reply for pattern, reply in self.rules if re.search(pattern, tail)), None)
        if rule is not None:
            kind, index, text = "rule", 0, rule
        elif TRACE_MARK in first:
            kind, index, text = "trace", 0, self.trace
        elif READER_MARK in first:
            kind, index, text = "reader", 0, self.reader
        else:
            index = sum(isinstance(m, AIMessage) for m in messages)
            if not self.chains:
                raise ValueError("scripted LLM: no rule matches this prompt and no chains given")
            kind, text = "chain", self.chains[min(index, len(self.chains) - 1)]
        if kind == "chain" and index == 0 and self.barrier:
            self._wait_for_peers()
        # Like a real model, the reply ends where a stop sequence of the call begins.
        ends = [text.find(s) for s in stop or () if s and s in text]
        text = text[: min(ends)] if ends else text
        if self.log:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(json.dumps({"kind": kind, "index": index, "pid": os.getpid()}) + "\n")
        if self.hold_from:
            self._hold()
        time.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    def _hold(self) -> None:
        """Wait for ``release`` if this call, just logged, is number ``hold_from`` or later."""
        if not (self.log and self.release):
            raise ValueError("scripted LLM: hold_from needs log and release")
        if len(Path(self.log).read_text(encoding="utf-8").splitlines()) < self.hold_from:
            return
        release = Path(self.release)
        self._wait_until(release.exists, lambda: f"{release} was never created")

    def _wait_for_peers(self) -> None:
        """Announce this call in ``barrier_dir`` and wait until ``barrier`` calls have.

        The announcement is a file holding the calling process's id.
        """
        if not self.barrier_dir:
            raise ValueError("scripted LLM: barrier needs barrier_dir")
        folder = Path(self.barrier_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / uuid.uuid4().hex).write_text(str(os.getpid()))

        def started() -> int:
            return sum(1 for _ in folder.iterdir())

        self._wait_until(
            lambda: started() >= self.barrier,
            lambda: f"{self.barrier} calls never ran at once ({started()} started)",
        )

    def _wait_until(self, done: Callable[[], bool], failure: Callable[[], str]) -> None:
        """Poll ``done`` (files other processes write) for up to ``barrier_timeout`` seconds."""
        deadline = time.monotonic() + self.barrier_timeout
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"scripted LLM: {failure()}")
            time.sleep(0.05)
