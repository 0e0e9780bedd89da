"""Progress events that nodes emit on LangGraph's ``custom`` stream.

Nodes never print: they describe what happened, and whoever streams the graph (the CLI's progress
line, a web UI, a test) decides what to show. Each event is a dict with an ``event`` name.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime


def emit(runtime: Runtime[Any], event: str, **data: Any) -> None:
    """Send ``{"event": event, **data}`` to the custom stream (a no-op when nobody listens)."""
    runtime.stream_writer({"event": event, **data})
