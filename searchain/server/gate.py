"""The team server's front door: a known key, then a known route, or the request goes no further.

A gate in front of every route the server serves, Aegra's own included (it is middleware of the
custom app, ``searchain.server.mcp:app``, which Aegra builds its routes into):

1. **A key.** Nothing but ``/health`` answers without a known key: a 401. Aegra's own route
   authentication leaves out a list of paths (``/``, ``/docs``, ``/openapi.json``, ``/info``,
   ``/metrics``, ...) and falls back to anonymous access when its auth module fails to load; the
   gate does neither. A CORS preflight passes without one (browsers send it without
   credentials), but only for a method and path of the list.
2. **A route of the list** (:mod:`searchain.server.routes`): any other method or path is a 404,
   before Aegra sees it, whatever a later Aegra serves there. A websocket is refused.

Aegra's CORS middleware sits outside the custom app, so it would answer every preflight with 200
before this gate saw it: :class:`PreflightGate` wraps the whole of Aegra's app
(:mod:`searchain.server.front`, what the server runs) and gives a preflight for a route not on
the list the 404 that route gets.

Were this module to fail to load, the app would fail with it and the server would not start: it
fails closed.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from searchain.server.auth import refusal
from searchain.server.routes import allowed

OPEN_PATHS = frozenset({"/health"})
"""Paths served without a key."""


def error(status: int, kind: str, message: str) -> JSONResponse:
    """An error in the Agent Protocol's shape (Aegra's), its message one line."""
    return JSONResponse({"error": kind, "message": message, "details": None}, status_code=status)


class KeyGate:
    """ASGI middleware: a known key (but on :data:`OPEN_PATHS`), then a route of the list."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request without a known key, or for a route not on the list."""
        if scope["type"] == "lifespan":  # the server starting and stopping, not a request
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: no route of the list is one
            await send({"type": "websocket.close", "code": 1008})
            return
        method, path = scope["method"], scope["path"]
        asked = preflight_of(scope)
        if asked:  # a CORS preflight, for a route of the list only
            method = asked
        elif path not in OPEN_PATHS:
            user, why = refusal(dict(scope["headers"]))
            if user is None:
                await error(401, "unauthorized", why)(scope, receive, send)
                return
        if not allowed(method, path):
            await not_a_route(method, path)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class PreflightGate:
    """ASGI middleware, outermost: a CORS preflight for a route not on the list is a 404."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a preflight for an unlisted route as the route itself is answered."""
        asked = preflight_of(scope) if scope["type"] == "http" else ""
        if asked and not allowed(asked, scope["path"]):
            await not_a_route(asked, scope["path"])(scope, receive, send)
            return
        await self.app(scope, receive, send)


def preflight_of(scope: Scope) -> str:
    """The method a CORS preflight asks about (upper case), or ``""`` for any other request."""
    if scope["method"] != "OPTIONS":
        return ""
    headers = dict(scope["headers"])
    return headers.get(b"access-control-request-method", b"").decode("latin-1").upper()


def not_a_route(method: str, path: str) -> JSONResponse:
    """The 404 of a method and path the server does not serve."""
    message = f"{method} {path} is not a route of this server (docs/server.md)"
    return error(404, "not_found", message)
