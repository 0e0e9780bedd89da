"""MCP on a deployed server: SearChain and IRCoT as tools that return the cited answer.

Mounted at ``/mcp`` as the server's custom app (``"http": {"app": ...}`` in ``aegra.json`` and
``langgraph.json``; ``langgraph dev``'s own ``/mcp`` is switched off, since it answers with the
Python repr of the whole state and with an error's class name instead of its message). Each call
is a stateless run of the graph's default assistant on the same server, made with the caller's
own API key, so it runs with the deployment's settings and under the caller's name. The result
comes back as readable text (answer, content with ``[n]``, references) and as structured content.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from starlette.types import Receive, Scope, Send

from searchain.cache import load_once
from searchain.integrations import TOOL_DESCRIPTION, format_answer
from searchain.output import provenance_notes, result_from_json, unstated_notes

ALLOWED_HOSTS_ENV = "SEARCHAIN_MCP_ALLOWED_HOSTS"
"""Comma-separated ``host:port`` values MCP requests may name besides loopback (DNS rebinding
protection); set it to the names a deployment is reached by."""

TASK_HELP = (
    " Optional `task`: qa (default), yesno, factcheck (the question is a claim), slot, longform."
)

IRCOT_DESCRIPTION = (
    "Answers a multi-hop factual question by interleaving retrieval with chain-of-thought "
    "reasoning (IRCoT): each reasoning sentence retrieves more passages, until the answer."
)

server = MCPServer(
    name="searchain",
    instructions="Multi-hop question answering with retrieval and numbered citations.",
)


def server_client(request: Request | None) -> LangGraphClient:
    """One langgraph-sdk client of this server per process (its connections reused by calls)."""
    if request is None:
        raise ToolError("the MCP tools run over HTTP only (no request to answer)")
    url = str(request.base_url).rstrip("/")
    # No key of its own: each call carries its caller's (see caller_headers).
    return load_once(("mcp-client", url), lambda: get_client(url=url, api_key=None))


def caller_headers(request: Request | None) -> dict[str, str]:
    """The MCP caller's credentials, passed on to the run a call starts."""
    if request is None:
        return {}
    return {k: v for k in ("x-api-key", "authorization") if (v := request.headers.get(k))}


def as_result(values: Any) -> CallToolResult:
    """A run's output as MCP content: the readable text and the structured answer."""
    if isinstance(values, dict) and "__error__" in values:
        error = values["__error__"]
        raise ToolError(str(error.get("message") or error.get("error") or error))
    if not isinstance(values, dict):
        raise ToolError(f"the run returned no result ({type(values).__name__})")
    result = result_from_json(values)
    content, notes = unstated_notes(result)
    structured = {
        "answer": result.get("answer", ""),
        "answer_source": result.get("answer_source", ""),
        "content": content,
        "content_source": result.get("content_source", ""),
        "notes": [*notes, *provenance_notes(result)],
        "references": [
            {
                "n": r.n,
                "title": r.title,
                "text": r.text,
                "id": r.id,
                "support": r.support,
                "inserted": r.inserted,
            }
            for r in result["references"]
        ],
    }
    text = TextContent(type="text", text=format_answer(result))
    return CallToolResult(content=[text], structured_content=structured)


async def run_graph(graph_id: str, question: str, task: str | None, ctx: Context) -> CallToolResult:
    """One stateless run of ``graph_id`` on this server, as the caller."""
    if not question.strip():
        raise ToolError("question is blank: ask a question")
    request = ctx.request_context.request
    values = await server_client(request).runs.wait(
        None,
        graph_id,
        input={"question": question, "task": task},
        raise_error=False,
        headers=caller_headers(request),
    )
    return as_result(values)


@server.tool(name="searchain", title="SearChain", description=TOOL_DESCRIPTION + TASK_HELP)
async def searchain(question: str, ctx: Context, task: str | None = None) -> CallToolResult:
    """SearChain over the deployment's corpus."""
    return await run_graph("searchain", question, task, ctx)


@server.tool(name="ircot", title="IRCoT", description=IRCOT_DESCRIPTION + TASK_HELP)
async def ircot(question: str, ctx: Context, task: str | None = None) -> CallToolResult:
    """IRCoT over the deployment's corpus."""
    return await run_graph("ircot", question, task, ctx)


def transport_security() -> TransportSecuritySettings:
    """Loopback always; the names in ``$SEARCHAIN_MCP_ALLOWED_HOSTS`` besides."""
    extra = [h.strip() for h in os.environ.get(ALLOWED_HOSTS_ENV, "").split(",") if h.strip()]
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *extra]
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in extra]
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


# Stateless JSON responses: any worker process can answer any request (no session affinity).
_mcp_asgi = server.streamable_http_app(
    json_response=True, stateless_http=True, transport_security=transport_security()
)


class _Delegate(Response):
    """A response that hands the request to the MCP transport (an ASGI app of its own)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await server.session_manager.handle_request(scope, receive, send)


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    """The MCP transport's task group lives as long as the server."""
    async with server.session_manager.run():
        yield


app = FastAPI(lifespan=lifespan)
"""The custom app both servers mount: ``/mcp``. A FastAPI route, so the server's own
authentication covers it (``enable_custom_route_auth`` in ``aegra.json``)."""


@app.api_route("/mcp", methods=["GET", "POST", "DELETE"], include_in_schema=False)
async def mcp_endpoint(request: Request) -> Response:
    """The MCP endpoint (streamable HTTP)."""
    return _Delegate()
