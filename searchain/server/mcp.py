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
from dataclasses import asdict
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import Response
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict
from starlette.types import Receive, Scope, Send

from searchain.cache import load_once
from searchain.integrations import TOOL_DESCRIPTION, format_answer
from searchain.output import result_from_json
from searchain.provenance import provenance_notes, unstated_notes
from searchain.server.gate import KeyGate
from searchain.server.keys import KEYS_FILE_ENV
from searchain.server.settings import deployment

ALLOWED_HOSTS_ENV = "SEARCHAIN_MCP_ALLOWED_HOSTS"
"""Comma-separated ``host:port`` values MCP requests may name besides loopback (DNS rebinding
protection); set it to the names a deployment is reached by."""

TASK_HELP = (
    " Optional `task`: qa (default), yesno, factcheck (the question is a claim), slot, longform."
    " Optional `files`: documents searched with the corpus for this question and cited to their"
    " page, each {name, mime_type, data (base64)}: PDF, HTML, Markdown, DOCX or plain text."
)

IRCOT_DESCRIPTION = (
    "Answers a multi-hop factual question by interleaving retrieval with chain-of-thought "
    "reasoning (IRCoT): each reasoning sentence retrieves more passages, until the answer."
)

TOOL_ARGUMENTS = frozenset({"question", "task", "files"})
"""All a tool takes: the deployment sets the models, files, indexes and URLs."""


class SentDocument(BaseModel):
    """A document sent with a question: searched for that question alone (a stateless run)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    """The file's name, which its citations show."""
    mime_type: str
    """Its type: application/pdf, text/html, text/markdown, text/plain, or DOCX's."""
    data: str
    """Its bytes, base64-encoded."""

    def block(self) -> dict[str, str]:
        """The file as LangChain's standard content block."""
        return {
            "type": "file",
            "mime_type": self.mime_type,
            "base64": self.data,
            "filename": self.name,
        }


class ToolServer(MCPServer):
    """The MCP server whose tools refuse, in one line, an argument they do not take.

    MCP's own validation drops unknown arguments silently; a caller who names ``llm`` or
    ``es_url`` is told that it is not theirs to set instead of getting an answer made with
    settings they did not ask for.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        """Refuse unknown arguments, then call the tool."""
        if unknown := sorted(set(arguments) - TOOL_ARGUMENTS):
            raise ToolError(
                f"{', '.join(unknown)}: not an argument of {name!r}, which takes a question, a "
                "task and files (the deployment sets its models, indexes and URLs)"
            )
        return await super().call_tool(name, arguments, context)


server = ToolServer(
    name="searchain",
    instructions="Multi-hop question answering with retrieval and numbered citations.",
)


INTERNAL_URL_ENV = "SEARCHAIN_SERVER_INTERNAL_URL"
"""Where the MCP tools send their runs (``scripts/server.sh`` sets it to the loopback address
the server listens on); unset, the address of the socket the request came in on."""


def server_client(request: Request | None) -> LangGraphClient:
    """One langgraph-sdk client of this server per process (its connections reused by calls).

    Its URL is the configured one, or the listening socket's own address: never the request's
    Host header, which the caller writes (a forged Host sent the runs to any loopback port).
    """
    if request is None:
        raise ToolError("the MCP tools run over HTTP only (no request to answer)")
    url = os.environ.get(INTERNAL_URL_ENV, "")
    if not url:
        host, port = request.scope.get("server") or ("127.0.0.1", 2024)
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
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
                "source": asdict(r.source) if r.source is not None else None,
            }
            for r in result["references"]
        ],
    }
    text = TextContent(type="text", text=format_answer(result))
    return CallToolResult(content=[text], structured_content=structured)


async def run_graph(
    graph_id: str,
    question: str,
    task: str | None,
    files: list[SentDocument] | None,
    ctx: Context,
) -> CallToolResult:
    """One stateless run of ``graph_id`` on this server, as the caller (with its files)."""
    if not question.strip():
        raise ToolError("question is blank: ask a question")
    request = ctx.request_context.request
    asked: dict[str, Any] = {"question": question, "task": task}
    if files:
        content = [{"type": "text", "text": question}, *(f.block() for f in files)]
        asked = {"messages": [{"type": "human", "content": content}], "task": task}
    try:
        values = await server_client(request).runs.wait(
            None,
            graph_id,
            input=asked,
            raise_error=False,
            headers=caller_headers(request),
        )
    except httpx.HTTPStatusError as exc:  # the server refused the run (429, 400): its line
        raise ToolError(refusal_message(exc.response)) from None
    return as_result(values)


def refusal_message(response: httpx.Response) -> str:
    """The one line of a refused request (the Agent Protocol's ``message``), with its status."""
    try:
        message = str(response.json().get("message") or "")
    except ValueError:
        message = ""
    return f"refused ({response.status_code}): {message or response.reason_phrase}"


@server.tool(name="searchain", title="SearChain", description=TOOL_DESCRIPTION + TASK_HELP)
async def searchain(
    question: str, ctx: Context, task: str | None = None, files: list[SentDocument] | None = None
) -> CallToolResult:
    """SearChain over the deployment's corpus (and the files sent with the question)."""
    return await run_graph("searchain", question, task, files, ctx)


@server.tool(name="ircot", title="IRCoT", description=IRCOT_DESCRIPTION + TASK_HELP)
async def ircot(
    question: str, ctx: Context, task: str | None = None, files: list[SentDocument] | None = None
) -> CallToolResult:
    """IRCoT over the deployment's corpus (and the files sent with the question)."""
    return await run_graph("ircot", question, task, files, ctx)


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


app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
"""The custom app both servers mount: ``/mcp``. A FastAPI route, so the server's own
authentication covers it (``enable_custom_route_auth`` in ``aegra.json``); no documentation
routes (they answered without a key)."""
if os.environ.get(KEYS_FILE_ENV):  # the team server; `langgraph dev` stays open, single-user
    deployment()  # its settings read once, as the worker starts (a broken one stops it)
    app.add_middleware(KeyGate)


@app.api_route("/mcp", methods=["GET", "POST", "DELETE"], include_in_schema=False)
async def mcp_endpoint(request: Request) -> Response:
    """The MCP endpoint (streamable HTTP)."""
    return _Delegate()
