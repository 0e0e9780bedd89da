"""What both graphs' builders share: a step bound, and state types the server can read back."""

from __future__ import annotations

from typing import Any

from langgraph.graph.state import CompiledStateGraph


class _SchemaAllowlistGraph(CompiledStateGraph):
    """A compiled graph whose copies keep the msgpack allowlist derived from its state schema.

    Under ``LANGGRAPH_STRICT_MSGPACK=true`` (set in langgraph.json) LangGraph only deserializes
    the types a graph's schemas name, through an allowlist computed at compile time. Its
    ``copy()``, which ``with_config`` and the LangGraph server (once per run) call, drops that
    allowlist (langgraph 1.2), so the server would block searchain's own state types. Here the
    copy carries it over; nothing else changes.
    """

    def copy(self, update: dict[str, Any] | None = None) -> _SchemaAllowlistGraph:
        """A copy with ``update`` applied, keeping the schema allowlist."""
        copied = super().copy(update)
        copied._serde_allowlist = self._serde_allowlist
        return copied


def finish(compiled: CompiledStateGraph, step_bound: int) -> CompiledStateGraph:
    """``compiled`` with its recursion limit at the graph's own step bound, copies kept whole.

    Its copies keep the schema allowlist (see :class:`_SchemaAllowlistGraph`).
    """
    compiled.__class__ = _SchemaAllowlistGraph
    return compiled.with_config(recursion_limit=step_bound)
