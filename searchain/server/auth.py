"""Authentication for a self-hosted server: every request carries an API key, each key a user.

Named by ``aegra.json`` (``"auth": {"path": "searchain.server.auth:auth"}``). The key comes in
``x-api-key`` (what the langgraph-sdk client and RemoteGraph send for ``api_key=``) or as
``Authorization: Bearer``; no key or an unknown one is a 401. The server keeps each thread,
run and assistant under the user it authenticated, so another user's thread id is a 404.

A caller sends questions and the caller's settings, nothing more: a request whose settings, in
any place a request carries them (:mod:`searchain.server.settings`), name a deployment setting
(a model, a file, an index, a URL: :data:`.policy.DEPLOYMENT_FIELDS`), an unknown one,
a value of another type or out of its bounds, is refused with a 400 naming it, before anything
is opened or fetched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from langgraph_sdk import Auth

from searchain.cache import load_once
from searchain.decisions import read_decision
from searchain.server.fair_share import admit
from searchain.server.keys import KEYS_FILE_ENV, KeyRing
from searchain.server.settings import parse_request
from searchain.server.uploads import admit_files

auth = Auth()
"""The server's authentication: LangGraph's ``Auth``, which Aegra and langgraph-api both load."""


def key_ring() -> KeyRing:
    """The key file's users, read once per process (and again whenever the file changes)."""
    return load_once(("api-keys", os.environ.get(KEYS_FILE_ENV, "")), KeyRing.from_environment)


def presented_key(headers: Mapping[str | bytes, str | bytes]) -> str:
    """The API key a request presents, or ``""``."""
    text = {
        (k.decode() if isinstance(k, bytes) else k).lower(): (
            v.decode() if isinstance(v, bytes) else v
        )
        for k, v in headers.items()
    }
    if key := text.get("x-api-key", "").strip():
        return key
    scheme, _, credentials = text.get("authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def refusal(headers: Mapping[str | bytes, str | bytes]) -> tuple[str | None, str]:
    """``(user, "")`` for a request carrying a known key, else ``(None, why it is refused)``."""
    try:
        ring = key_ring()
    except ValueError:  # unreadable since the start (which checked it): refuse, never a 500
        return None, "the server's key file is broken"
    key = presented_key(headers)
    if not key:
        return None, "no API key: send it as x-api-key or Authorization: Bearer"
    user = ring.user(key)
    if user is None:
        return None, "the server's key file is broken" if ring.error else "unknown API key"
    return user, ""


@auth.authenticate
async def authenticate(headers: Mapping[str | bytes, str | bytes]) -> Auth.types.MinimalUserDict:
    """The user whose key the request carries; 401 without a known key."""
    user, why = refusal(headers)
    if user is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail=why)
    return {"identity": user, "display_name": user, "is_authenticated": True}


@auth.on
async def caller_settings(ctx: Auth.types.AuthContext, value: object) -> None:
    """Refuse what a caller may not make the server do; allow everything else.

    Every event's request is parsed for settings (:func:`searchain.server.settings.parse_request`):
    anything but the caller's settings, of their types and within their bounds, is a 400 naming
    it. The files a request's messages send are counted against the user's bound, or refused
    (:mod:`searchain.server.uploads`). A run is then admitted into the user's fair share, or
    refused with a 429 (:mod:`searchain.server.fair_share`), and its ``configurable`` keeps
    nothing but the settings (the server reads an otherwise empty context from it).
    """
    try:
        settings = parse_request(value)
    except ValueError as exc:
        raise Auth.exceptions.HTTPException(status_code=400, detail=str(exc)) from None
    if isinstance(value, dict):  # messages may come in a run's input, command or a state update
        await admit_files(ctx, value)
    command = value.get("command") if isinstance(value, dict) else None
    if isinstance(command, dict) and "resume" in command:
        try:  # a malformed decision is refused before any run, the thread still paused
            read_decision(command["resume"])
        except ValueError as exc:
            raise Auth.exceptions.HTTPException(status_code=400, detail=str(exc)) from None
    if (ctx.resource, ctx.action) == ("threads", "create_run") and isinstance(value, dict):
        config = value.get("config")
        if isinstance(config, dict) and isinstance(config.get("configurable"), dict):
            configurable = config["configurable"]
            value["config"] = {
                **config,
                "configurable": {k: configurable[k] for k in settings if k in configurable},
            }
        await admit(ctx.user.identity, value)
