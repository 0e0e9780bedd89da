"""Hugging Face weights loaded offline first, with one line that says how to get them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from searchain.errors import SettingError


def load_pretrained(
    loader: Any, name_or_path: str, kind: str = "reader", spec: str = "dpr", **kwargs: Any
) -> Any:
    """``loader.from_pretrained`` with an error that says how to get the weights.

    A local directory or a model already in the Hugging Face cache loads offline; a hub name is
    fetched only when the network allows it (``HF_HUB_OFFLINE=1`` makes a miss fail at once).
    ``spec`` is the spec's prefix the advice names (``dpr-int8`` for the reader ``dpr-int8:DIR``).
    """
    if is_path(name_or_path):
        return _load_directory(loader, name_or_path, kind, **kwargs)
    try:
        return loader.from_pretrained(name_or_path, local_files_only=True, **kwargs)
    except OSError:
        if os.environ.get("HF_HUB_OFFLINE") == "1":
            raise _missing(name_or_path, kind, spec) from None
    unreachable = hub_unreachable()
    if unreachable:  # one attempt, not the hub client's minute of retries
        raise _missing(name_or_path, kind, spec, f" ({unreachable})") from None
    try:
        return loader.from_pretrained(name_or_path, **kwargs)
    except OSError:
        raise _missing(name_or_path, kind, spec) from None


def is_path(name_or_path: str) -> bool:
    """Whether a model name is a directory's path (it exists, or is written as a path)."""
    return name_or_path.startswith((".", "/", "~")) or Path(name_or_path).exists()


def _load_directory(loader: Any, name: str, kind: str, **kwargs: Any) -> Any:
    """A model saved in a directory, or one line that says what the directory lacks."""
    path = Path(name).expanduser()
    if not path.is_dir():
        there = "is not a directory" if path.exists() else "does not exist"
        raise ValueError(f"{kind} model directory {name} {there}")
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        config = None
    if not isinstance(config, dict) or not config.get("model_type"):
        raise ValueError(
            f"{name} holds no config.json naming a model_type: not a {kind} model directory "
            "(save_pretrained writes one, beside the weights and the tokenizer's files)"
        )
    try:
        return loader.from_pretrained(str(path), local_files_only=True, **kwargs)
    except Exception as exc:  # transformers' reasons span lines and name its internals
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        raise ValueError(
            f"{kind} model directory {name} could not be loaded ({type(exc).__name__}: "
            f"{reason[:160]}): it needs the files save_pretrained writes, config.json, the "
            "weights and the tokenizer's"
        ) from None


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


def _missing(name: str, kind: str, spec: str, why: str = "") -> ValueError:
    setting = "verifier" if kind == "NLI" else "reader"
    fix = (
        "nli:DIR, or use {verifier} lexical" if kind == "NLI" else "{spec}:DIR, or use {reader} llm"
    )
    return SettingError(
        "{kind} model {name!r} could not be loaded: download it where the Hugging Face hub is "
        "reachable (huggingface-cli download {name} --local-dir DIR) and pass {"
        + setting
        + "} "
        + fix
        + "{why}",
        settings=(setting,),
        why=why,
        kind=kind,
        name=name,
        spec=spec,
    )
