"""The team server's routes: a closed list, matched exactly, and a tripwire for new ones."""

from __future__ import annotations

import asyncio

import pytest

from searchain.server.routes import ALLOWED, REFUSED, allowed, route_table, unlisted
from tests.conftest import require_module


def test_the_lists_do_not_overlap_and_name_templates():
    assert not ALLOWED & REFUSED
    for method, template in ALLOWED | REFUSED:
        assert method in {"GET", "POST", "PUT", "PATCH", "DELETE"} and template.startswith("/")


@pytest.mark.parametrize(
    ("method", "path", "answered"),
    [
        ("GET", "/threads/abc", True),
        ("POST", "/threads/abc/runs/wait", True),
        ("GET", "/threads/abc/runs/r1/stream", True),
        ("GET", "/health", True),
        # the neighbours: another method, a slash more, a segment more or less, an empty id
        ("PUT", "/threads/abc", False),
        ("HEAD", "/threads/abc", False),
        ("GET", "/threads/abc/", False),
        ("GET", "/threads//state", False),
        ("GET", "/threads/abc/state/c1/more", False),
        ("POST", "/threads/abc/runs/wait/x", False),
        ("POST", "/threads/abc/commands", False),
        ("POST", "/runs/crons", False),
        ("GET", "/threads", False),
        ("GET", "/", False),
        ("GET", "/threads/a%2Fb/state", True),  # an encoded slash stays inside its segment
    ],
)
def test_a_request_is_answered_only_on_a_listed_route(method, path, answered):
    assert allowed(method, path) is answered


def test_a_route_nobody_listed_is_found_in_the_table():
    """An upgrade that adds a route fails the route-table test instead of opening a door."""
    fastapi = require_module("fastapi", "studio")
    app = fastapi.FastAPI()
    router = fastapi.APIRouter()

    @router.post("/threads/{thread_id}/runs/wait")
    def known() -> None: ...

    @router.post("/threads/{thread_id}/export")
    def new() -> None: ...

    app.include_router(router)
    mounted = fastapi.FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    mounted.get("/inner")(lambda: None)
    app.mount("/sub", mounted)
    table = route_table(app)
    assert ("POST", "/threads/{thread_id}/runs/wait") in table
    assert set(unlisted(table)) == {("POST", "/threads/{thread_id}/export"), ("GET", "/sub/inner")}


def test_the_gate_refuses_an_unlisted_route_and_a_websocket(monkeypatch, tmp_path):
    require_module("starlette", "studio")
    from searchain.server.gate import KeyGate

    keys = tmp_path / "keys.toml"
    keys.write_text('[keys]\nalice = "sk-a-key-that-is-long-enough"\n')
    monkeypatch.setenv("SEARCHAIN_API_KEYS_FILE", str(keys))
    reached: list[str] = []

    async def app(scope, receive, send) -> None:
        reached.append(scope.get("path", scope["type"]))

    def call(scope: dict) -> list[dict]:
        return through(KeyGate(app), scope)

    key = [(b"x-api-key", b"sk-a-key-that-is-long-enough")]
    http = {"type": "http", "method": "POST", "headers": key, "query_string": b""}
    assert call({**http, "path": "/threads/t/runs/wait"}) == [] and reached == [
        "/threads/t/runs/wait"
    ]
    [start, body] = call({**http, "path": "/runs/crons"})
    assert (
        start["status"] == 404 and b"POST /runs/crons is not a route of this server" in body["body"]
    )
    [start, _] = call({**http, "path": "/runs/crons", "headers": []})
    assert start["status"] == 401  # no key: nothing about the route is said
    assert call({"type": "websocket", "path": "/threads", "headers": key}) == [
        {"type": "websocket.close", "code": 1008}
    ]
    assert reached == ["/threads/t/runs/wait"]
    reached.clear()
    # A preflight needs no key, but only for a method and path of the list.
    asks = [(b"access-control-request-method", b"POST")]
    options = {**http, "method": "OPTIONS", "headers": asks}
    assert call({**options, "path": "/runs/wait"}) == []
    [start, _] = call({**options, "path": "/runs/crons"})
    assert start["status"] == 404
    asks = [(b"access-control-request-method", b"PUT")]
    [start, _] = call({**options, "path": "/runs/wait", "headers": asks})
    assert start["status"] == 404
    assert call({"type": "lifespan"}) == []
    assert reached == ["/runs/wait", "lifespan"]


def test_a_preflight_for_an_unlisted_route_gets_that_routes_404_before_any_middleware():
    """Issue 67: Aegra's CORS middleware, outside the key gate, answered 200 to every keyless
    preflight, refused paths included."""
    require_module("starlette", "studio")
    from searchain.server.gate import PreflightGate

    reached: list[str] = []

    async def app(scope, receive, send) -> None:
        reached.append(scope.get("path", scope["type"]))

    def call(scope: dict) -> list[dict]:
        return through(PreflightGate(app), scope)

    def preflight(path: str, method: bytes) -> dict:
        headers = [(b"origin", b"https://a.example"), (b"access-control-request-method", method)]
        return {"type": "http", "method": "OPTIONS", "path": path, "headers": headers}

    unlisted = (("/runs/crons", b"POST"), ("/runs/wait", b"PUT"), ("/store/items", b"get"))
    for path, method in unlisted:
        [start, body] = call(preflight(path, method))
        assert start["status"] == 404, path
        assert f"{method.decode().upper()} {path} is not a route".encode() in body["body"]
    assert reached == []
    assert call(preflight("/runs/wait", b"post")) == []  # listed: the CORS middleware answers
    plain = {"type": "http", "method": "OPTIONS", "path": "/runs/crons", "headers": []}
    assert call(plain) == []  # no preflight: the key gate inside refuses it (401)
    assert call({"type": "lifespan"}) == []
    assert reached == ["/runs/wait", "/runs/crons", "lifespan"]


def through(gate, scope: dict) -> list[dict]:
    """What an ASGI ``gate`` sends for one request ``scope`` (nothing: it passed it on)."""
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request"}

    asyncio.run(gate(scope, receive, send))
    return sent
