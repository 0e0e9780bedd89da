"""Hugging Face weights loaded offline first, with one line that says how to get them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def load_pretrained(loader: Any, name_or_path: str, kind: str = "reader", **kwargs: Any) -> Any:
    """``loader.from_pretrained`` with an error that says how to get the weights.

    A local directory or a model already in the Hugging Face cache loads offline; a hub name is
    fetched only when the network allows it (``HF_HUB_OFFLINE=1`` makes a miss fail at once).
    """
    try:
        return loader.from_pretrained(name_or_path, local_files_only=True, **kwargs)
    except OSError:
        if Path(name_or_path).exists() or os.environ.get("HF_HUB_OFFLINE") == "1":
            raise _missing(name_or_path, kind) from None
    unreachable = hub_unreachable()
    if unreachable:  # one attempt, not the hub client's minute of retries
        raise ValueError(f"{_missing(name_or_path, kind)} ({unreachable})") from None
    try:
        return loader.from_pretrained(name_or_path, **kwargs)
    except OSError:
        raise _missing(name_or_path, kind) from None


HUB_TIMEOUT = 5.0
"""Seconds the one connection attempt to the hub may take before it counts as unreachable."""


def hub_unreachable() -> str:
    """Why the Hugging Face hub cannot be reached (one TCP connection tried), or ``""``."""
    import socket
    from urllib.parse import urlsplit

    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parts = urlsplit(endpoint)
    host, port = parts.hostname or "huggingface.co", parts.port or 443
    try:
        socket.create_connection((host, port), timeout=HUB_TIMEOUT).close()
    except OSError as exc:
        return f"the hub at {host}:{port} is unreachable: {exc.strerror or exc}"
    return ""


def _missing(name: str, kind: str) -> ValueError:
    fix = (
        "pass --verifier nli:DIR, or use --verifier lexical"
        if kind == "NLI"
        else "pass --reader dpr:DIR or extractive:DIR, or use --reader llm"
    )
    return ValueError(
        f"{kind} model {name!r} could not be loaded: download it where the Hugging Face hub is "
        f"reachable (huggingface-cli download {name} --local-dir DIR) and {fix}"
    )
