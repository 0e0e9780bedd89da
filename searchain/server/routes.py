"""The routes the team server answers: a closed list; every other route is a 404.

These are the Agent Protocol routes that the langgraph-sdk client, ``RemoteGraph``, Agent Chat UI
and the MCP tools use (docs/server.md lists them), each tested against the real server. Aegra
serves more (crons, the store, the Agent Protocol v2 commands, bulk operations, documentation
pages, probes): those are in :data:`REFUSED`, and so is whatever a later Aegra adds, since the
gate (:mod:`searchain.server.gate`) passes only what :data:`ALLOWED` names. :data:`REFUSED` is
the list of routes known to be refused on purpose; a test reads the running server's route table
and fails on a route that is in neither list, so an upgrade that adds one is looked at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

Route = tuple[str, str]
"""``(method, path template)``, as FastAPI declares it: ``("GET", "/threads/{thread_id}")``."""

ALLOWED: frozenset[Route] = frozenset(
    {
        ("GET", "/health"),  # the one route answered without a key (load balancers)
        ("GET", "/info"),  # Agent Chat UI's check that a server is there
        ("GET", "/mcp"),
        ("POST", "/mcp"),
        ("DELETE", "/mcp"),
        # assistants
        ("POST", "/assistants"),
        ("POST", "/assistants/search"),
        ("POST", "/assistants/count"),
        ("GET", "/assistants/{assistant_id}"),
        ("PATCH", "/assistants/{assistant_id}"),
        ("DELETE", "/assistants/{assistant_id}"),
        ("GET", "/assistants/{assistant_id}/graph"),
        ("GET", "/assistants/{assistant_id}/schemas"),
        ("GET", "/assistants/{assistant_id}/subgraphs"),
        # threads
        ("POST", "/threads"),
        ("POST", "/threads/search"),
        ("GET", "/threads/{thread_id}"),
        ("PATCH", "/threads/{thread_id}"),
        ("DELETE", "/threads/{thread_id}"),
        ("GET", "/threads/{thread_id}/state"),
        ("POST", "/threads/{thread_id}/state"),
        ("GET", "/threads/{thread_id}/state/{checkpoint_id}"),
        ("POST", "/threads/{thread_id}/state/checkpoint"),
        ("POST", "/threads/{thread_id}/history"),
        # runs on a thread
        ("POST", "/threads/{thread_id}/runs"),
        ("POST", "/threads/{thread_id}/runs/stream"),
        ("POST", "/threads/{thread_id}/runs/wait"),
        ("GET", "/threads/{thread_id}/runs"),
        ("GET", "/threads/{thread_id}/runs/{run_id}"),
        ("GET", "/threads/{thread_id}/runs/{run_id}/join"),
        ("GET", "/threads/{thread_id}/runs/{run_id}/stream"),
        ("POST", "/threads/{thread_id}/runs/{run_id}/cancel"),
        ("DELETE", "/threads/{thread_id}/runs/{run_id}"),
        # stateless runs
        ("POST", "/runs"),
        ("POST", "/runs/stream"),
        ("POST", "/runs/wait"),
    }
)
"""What the server answers (with a key; ``/health`` without one)."""

REFUSED: frozenset[Route] = frozenset(
    {
        # Crons run later, from the server's scheduler, with settings the request held: off.
        ("POST", "/runs/crons"),
        ("POST", "/threads/{thread_id}/runs/crons"),
        ("PATCH", "/runs/crons/{cron_id}"),
        ("DELETE", "/runs/crons/{cron_id}"),
        ("POST", "/runs/crons/search"),
        ("POST", "/runs/crons/count"),
        # The Agent Protocol v2: its commands carry a run's settings in a shape of their own.
        ("POST", "/threads/{thread_id}/commands"),
        ("POST", "/threads/{thread_id}/stream/events"),
        # The store: no graph of searchain's uses it; a key holder would keep data there.
        ("PUT", "/store/items"),
        ("GET", "/store/items"),
        ("DELETE", "/store/items"),
        ("POST", "/store/items/search"),
        ("POST", "/store/namespaces"),
        # Aegra's own listings, versions and bulk operations, which the sdk does not use.
        ("GET", "/assistants"),
        ("POST", "/assistants/{assistant_id}/latest"),
        ("POST", "/assistants/{assistant_id}/versions"),
        ("GET", "/threads"),
        ("POST", "/threads/prune"),
        ("GET", "/threads/{thread_id}/history"),
        ("PATCH", "/threads/{thread_id}/runs/{run_id}"),
        ("POST", "/runs/cancel"),
        # Pages and probes: the root, documentation, metrics, Kubernetes' probes.
        ("GET", "/"),
        ("GET", "/docs"),
        ("GET", "/redoc"),
        ("GET", "/openapi.json"),
        ("GET", "/docs/oauth2-redirect"),
        ("GET", "/metrics"),
        ("GET", "/ready"),
        ("GET", "/live"),
    }
)
"""Routes Aegra 0.11 serves that this server refuses on purpose (a 404 before Aegra sees them)."""


def _pattern(template: str) -> re.Pattern[str]:
    """A path template as a regular expression: each ``{name}`` one path segment."""
    parts = re.split(r"(\{[^/{}]+\})", template)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts))


@cache
def _allowed_patterns() -> dict[str, list[re.Pattern[str]]]:
    by_method: dict[str, list[re.Pattern[str]]] = {}
    for method, template in sorted(ALLOWED):
        by_method.setdefault(method, []).append(_pattern(template))
    return by_method


def allowed(method: str, path: str) -> bool:
    """Whether the server answers ``method`` on ``path`` (a request's, not a template)."""
    return any(p.fullmatch(path) for p in _allowed_patterns().get(method, ()))


def route_table(app: Any) -> list[Route]:
    """Every ``(method, template)`` an ASGI app routes, nested routers and mounts included.

    A route with no methods (a mounted app, a websocket) is listed with method ``*``.
    """
    return sorted(set(_walk(getattr(app, "routes", ()), "")))


def _walk(routes: Iterable[Any], prefix: str) -> Iterator[Route]:
    for route in routes:
        nested = getattr(route, "original_router", None)  # FastAPI's included routers
        if nested is not None:
            yield from _walk(nested.routes, prefix)
            continue
        path = prefix + str(getattr(route, "path", ""))
        methods = getattr(route, "methods", None)
        inner = getattr(route, "routes", None)
        if methods:
            yield from ((m, path) for m in methods if m != "HEAD")
        elif inner:
            yield from _walk(inner, path)
        else:
            yield ("*", path)


def unlisted(table: Iterable[Route]) -> list[Route]:
    """The routes of ``table`` that are neither allowed nor refused on purpose."""
    return sorted(set(table) - ALLOWED - REFUSED)
