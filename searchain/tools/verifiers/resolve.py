"""Verifier specs to objects: ``lexical`` (the default) or ``nli:MODEL``, built once."""

from __future__ import annotations

from typing import Any

from searchain.cache import load_once
from searchain.tools.verifiers.lexical import LexicalVerifier
from searchain.tools.verifiers.nli import NLIVerifier
from searchain.types import Verifier


def resolve_verifier(spec: str | Verifier) -> Any:
    """The verifier ``spec`` names; any object with ``verdict`` is used as it is."""
    if isinstance(spec, Verifier):
        return spec
    name, _, model = spec.partition(":")
    if name == "lexical" and not model:
        return load_once(("verifier", "lexical"), LexicalVerifier)
    if name == "nli" and model:
        return load_once(("verifier", spec), lambda: NLIVerifier(model))
    raise ValueError(
        f"unknown verifier {spec!r}: use lexical (the offline default) or nli:MODEL (a "
        "sequence-classification NLI model's hub name or directory)"
    )
