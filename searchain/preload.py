"""Every component a run's Context names, built and loaded before the first LLM call.

A missing extra, absent weights, an unreachable server or a broken index fail here, in one
line, before a thread or a checkpoint exists: ``searchain ask`` and ``resume`` call it, and the
team server's start (:mod:`searchain.server.ready`) calls it with the deployment's settings, so a
server is never said to be ready when it cannot answer.
"""

from __future__ import annotations

from typing import Any


def preload(context: Any) -> None:
    """Build every component now, so a missing one fails before the first LLM call."""
    from searchain.context import context_verifier
    from searchain.searched import context_retriever
    from searchain.tools.embeddings import embedder
    from searchain.tools.llms.resolve import resolve_llm
    from searchain.tools.readers.resolve import resolve_reader

    context.task_prompt()  # the task exists (a prompt file of the user's is read here)
    llm = resolve_llm(context.llm)
    context.guided_prompt(None, llm)  # chain_prompt guided: a model and task that can have it
    if hasattr(llm, "load"):
        llm.load()  # an OpenAI-compatible server: it answers and serves the model
    if context.semantic_dedup:
        embedder()
    retriever = context_retriever(context)
    if hasattr(retriever, "search_fields"):
        retriever.search_fields()  # Elasticsearch: reachable, the index and its fields exist
    if hasattr(retriever, "warm"):
        retriever.warm()  # the embedded index: its kernel loads while the LLM plans
    loaded = resolve_reader(context.reader, context.llm)
    if hasattr(loaded, "load"):
        loaded.load()
    verifier = context_verifier(context)
    if hasattr(verifier, "load"):
        verifier.load()
