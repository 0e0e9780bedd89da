"""Nothing but ``/health`` answers without a key: a gate in front of every route of the server.

Aegra's route authentication leaves out a list of paths (``/``, ``/docs``, ``/openapi.json``,
``/info``, ``/metrics``, ...) and falls back to anonymous access when its auth module fails to
load. The gate is middleware of the custom app (``searchain.server.mcp:app``), so it wraps every
route the server serves, Aegra's own included: a request without a known key gets a 401 whatever
its path, except ``/health`` (for load balancers) and CORS preflights (which browsers send without
credentials; they reach no handler). Were this module to fail to load, the app would fail with it
and the server would not start: it fails closed.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from searchain.server.auth import refusal

OPEN_PATHS = frozenset({"/health"})
"""Paths served without a key."""


class KeyGate:
    """ASGI middleware: a request without a known API key gets a 401 (but :data:`OPEN_PATHS`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an HTTP request without a known key; pass on everything else."""
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            preflight = scope["method"] == "OPTIONS" and any(
                name == b"access-control-request-method" for name, _ in scope["headers"]
            )
            user, why = refusal(dict(scope["headers"]))
            if user is None and not preflight:
                body = {"error": "unauthorized", "message": why, "details": None}  # Aegra's shape
                await JSONResponse(body, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)
