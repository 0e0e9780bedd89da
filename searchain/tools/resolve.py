"""Specs to objects: the retriever and reader named in the context, built once per spec.

The LLM has its own resolver in :mod:`searchain.tools.llm`; all three accept a ready object so
applications and tests can inject their own components.
"""

from __future__ import annotations

from searchain.tools.base import Reader, Retriever


def resolve_retriever(spec: str | Retriever) -> Retriever:
    """Return the retriever for ``spec`` (an object with ``search(query, k)`` is used as is)."""
    if isinstance(spec, Retriever):
        return spec
    raise ValueError(f"unknown retriever {spec!r}: pass a retriever object with search(query, k)")


def resolve_reader(spec: str | Reader) -> Reader:
    """Return the reader for ``spec`` (an object with ``read(query, passages)`` is used as is)."""
    if isinstance(spec, Reader):
        return spec
    raise ValueError(f"unknown reader {spec!r}: pass a reader object with read(query, passages)")
