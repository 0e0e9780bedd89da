"""How the state's fields take a step's writes: reducers, and channels checkpointed as deltas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.channels.last_value import LastValue
from langgraph.graph.message import add_messages


def replaced(_: Any, writes: Sequence[Any]) -> Any:
    """Reducer of a value each write replaces whole (the last write of a batch wins)."""
    return writes[-1]


def added_messages(messages: list[AnyMessage], writes: Sequence[Any]) -> list[AnyMessage]:
    """``add_messages`` over a batch of writes, in order."""
    for write in writes:
        messages = add_messages(messages, write)
    return messages


RESTART = "restart"
"""First item of an ``llm_messages`` write that starts the conversation afresh (a new question)."""


def continued(turns: list[dict[str, str]], writes: Sequence[Any]) -> list[dict[str, str]]:
    """The LLM conversation after a batch of writes: each appends its turns, or restarts it."""
    for write in writes:
        if write and write[0] == RESTART:
            turns, write = [], write[1:]
        turns = [*turns, *write]
    return turns


def delta(reducer: Any) -> DeltaChannel:
    """A channel checkpointed as the steps' writes, not rewritten whole at every step.

    The tree and the conversations are the bulk of the state but change in few steps; kept
    as deltas, a step's checkpoint holds only what that step wrote (LangGraph replays the writes
    to rebuild them, and snapshots them every 100 writes).
    """
    return DeltaChannel(reducer)


class Given(str):
    """A text the run's own input (or the step before) just wrote: see :class:`GivenValue`."""

    __slots__ = ()


class GivenValue(LastValue):
    """A last-value channel whose text reads as :class:`Given` in the step after a write.

    The only way a node can tell "this run was given ``question``" from "``question`` still
    holds the last run's": a run given ``{"messages": []}`` must be refused, one given the same
    question again answered. The flag lives in the running channel only (checkpoints hold the
    plain text), so a run resumed from a checkpoint was given nothing.
    """

    __slots__ = ("fresh",)

    def __init__(self, typ: Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.fresh = False

    def update(self, values: Sequence[Any]) -> bool:
        """Take a step's writes; a step with none ends the freshness."""
        self.fresh = bool(values)
        return super().update(values)

    def get(self) -> Any:
        """The value, as :class:`Given` in the step after it was written."""
        value = super().get()
        return Given(value) if self.fresh and isinstance(value, str) else value

    def checkpoint(self) -> Any:
        """The plain value: freshness is never checkpointed."""
        value = super().checkpoint()
        return str(value) if isinstance(value, Given) else value
