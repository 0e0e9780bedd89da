"""The extras a deployment's settings need installed, derived before its environment exists.

``scripts/server.sh`` builds the server's environment from these: an ``openai:`` LLM (or an
``OPENAI_BASE_URL`` server) needs ``openai``, ``local`` and ``gguf:`` need ``local``, the ``dpr``
and ``extractive`` readers and an ``nli:`` verifier need ``models`` (their int8 variants
``onnx`` too), Elasticsearch needs ``elasticsearch``, semantic dedup ``semantic``.
``SERVER_EXTRAS`` adds more (a comma-separated list). Run as
``python -m searchain.server.extras`` with ``searchain`` on the path and nothing installed: it
imports only the standard library, since it runs before any of searchain's dependencies are
there.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

BASE = ("server", "postgres", "documents")
"""What every deployment has: Aegra, its PostgreSQL, and reading the files sent in the chat."""

KNOWN = frozenset(
    {*BASE, "models", "onnx", "local", "openai", "elasticsearch", "semantic", "studio", "eval"}
)
"""The extras ``SERVER_EXTRAS`` may name (pyproject.toml's, less the development ones)."""


def llm_extras(spec: str, env: Mapping[str, str]) -> set[str]:
    """What an LLM spec needs: ``auto`` is what it resolves to in ``env``."""
    name = spec.split("?", 1)[0].strip()
    if name == "auto":
        if env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY"):
            return {"openai"}
        return {"local"}
    if name == "local" or name.startswith("gguf:"):
        return {"local"}
    if name.startswith("openai:"):
        return {"openai"}
    return set()  # scripted:FILE needs nothing; another provider names its own package


def reader_extras(spec: str, llm: str, env: Mapping[str, str]) -> set[str]:
    """What a reader spec needs: ``auto`` reads with the LLM unless the models extra is asked."""
    name, _, arg = spec.partition(":")
    if name == "llm":
        return llm_extras(arg or llm, env)
    if name == "auto":
        return llm_extras(llm, env)  # auto is DPR only where the models extra already is
    kind, _, precision = name.partition("-")
    if kind in ("dpr", "extractive") or Path(spec).is_dir():
        return {"models", "onnx"} if precision == "int8" else {"models"}
    return set()


def deployment_extras(env: Mapping[str, str]) -> list[str]:
    """Every extra the deployment's ``SEARCHAIN_*`` settings and ``SERVER_EXTRAS`` need."""
    llm = env.get("SEARCHAIN_LLM", "auto")
    extras = set(BASE) | llm_extras(llm, env)
    extras |= reader_extras(env.get("SEARCHAIN_READER", "auto"), llm, env)
    for chosen in _choices(env.get("SEARCHAIN_LLM_CHOICES", "")):
        extras |= llm_extras(chosen, env)
    if env.get("SEARCHAIN_VERIFIER", "lexical").startswith("nli:"):
        extras.add("models")
    if env.get("SEARCHAIN_RETRIEVER", "bm25") == "elasticsearch":
        extras.add("elasticsearch")
    if env.get("SEARCHAIN_SEMANTIC_DEDUP", "").lower() in ("1", "true", "yes"):
        extras.add("semantic")
    asked = [name.strip() for name in env.get("SERVER_EXTRAS", "").split(",") if name.strip()]
    if unknown := sorted(set(asked) - KNOWN):
        raise ValueError(
            f"SERVER_EXTRAS names {', '.join(unknown)}: the extras are {', '.join(sorted(KNOWN))}"
        )
    return sorted(extras | set(asked))


def _choices(raw: str) -> Iterable[str]:
    """The specs of ``SEARCHAIN_LLM_CHOICES`` (a broken value is the workers' to refuse)."""
    try:
        choices = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return ()
    return [v for v in choices.values() if isinstance(v, str)] if isinstance(choices, dict) else ()


def main() -> None:
    """Print the extras, comma-separated; a bad ``SERVER_EXTRAS`` is one line and exit 1."""
    try:
        print(",".join(deployment_extras(os.environ)))
    except ValueError as exc:
        sys.exit(f"error: {exc}")


if __name__ == "__main__":
    main()
