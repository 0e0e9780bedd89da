"""Authentication for a self-hosted server: every request carries an API key, each key a user.

Named by ``aegra.json`` (``"auth": {"path": "searchain.server.auth:auth"}``). The key comes in
``x-api-key`` (what the langgraph-sdk client and RemoteGraph send for ``api_key=``) or as
``Authorization: Bearer``; no key or an unknown one is a 401. The server keeps each thread,
run and assistant under the user it authenticated, so another user's thread id is a 404.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from langgraph_sdk import Auth

from searchain.cache import load_once
from searchain.server.keys import KEYS_FILE_ENV, KeyRing

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


@auth.authenticate
async def authenticate(headers: Mapping[str | bytes, str | bytes]) -> Auth.types.MinimalUserDict:
    """The user whose key the request carries; 401 without a known key."""
    ring = key_ring()
    key = presented_key(headers)
    if not key:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="no API key: send it as x-api-key or Authorization: Bearer"
        )
    user = ring.user(key)
    if user is None:
        detail = "the server's key file is broken" if ring.error else "unknown API key"
        raise Auth.exceptions.HTTPException(status_code=401, detail=detail)
    return {"identity": user, "display_name": user, "is_authenticated": True}
