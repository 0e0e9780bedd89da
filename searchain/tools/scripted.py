"""``scripted:FILE.json`` — a stand-in chat model that replays a script, for offline runs.

No capable LLM runs on a machine without a GPU or an API key, yet the checkpointing, Studio and
CLI paths need one that behaves like a model across processes. This one is stateless: the reply is
chosen from the conversation itself (the n-th Chain-of-Query reply is ``chains[n]``), so a resumed
run in a new process continues the script where the checkpoint left it. It is a test and demo
device, and says so in its name; it answers nothing it was not told to.

The script file: ``{"chains": [...], "trace": "...", "reader": "...", "delay": 0, "log": "path"}``;
``log`` (optional) gets one JSON line per call, ``delay`` seconds are slept per call.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

TRACE_MARK = "Write the final content"
READER_MARK = "Read the passage"


class ScriptedChatModel(BaseChatModel):
    """Replays ``chains`` for Chain-of-Query calls, ``trace`` for Trace, ``reader`` for reading."""

    chains: list[str]
    """The n-th reply of a question's Chain-of-Query conversation (the last one repeats)."""
    trace: str = "So the final answer is unknown."
    """Reply to the Trace prompt."""
    reader: str = "Answer: none\nConfidence: 0"
    """Reply to the ``llm`` reader's prompt."""
    delay: float = 0.0
    """Seconds to sleep per call (to make runs slow enough to interrupt in tests)."""
    log: str | None = None
    """File that gets one JSON line per call: ``{"kind", "index"}``."""

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
        if TRACE_MARK in first:
            kind, index, text = "trace", 0, self.trace
        elif READER_MARK in first:
            kind, index, text = "reader", 0, self.reader
        else:
            index = sum(isinstance(m, AIMessage) for m in messages)
            kind, text = "chain", self.chains[min(index, len(self.chains) - 1)]
        if self.log:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(json.dumps({"kind": kind, "index": index}) + "\n")
        time.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])
