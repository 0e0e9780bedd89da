"""LangGraph graphs: SearChain (and IRCoT beside it)."""
