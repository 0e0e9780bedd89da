"""Search-in-the-Chain (SearChain) and IRCoT as LangGraph agents.

Importing the package is cheap: graphs, models and indexes load only when used. Start with
:func:`searchain.graph.searchain.build_graph` and :class:`searchain.context.Context`.
"""

from pathlib import Path

__version__ = "0.1.0"


def demo_corpus() -> Path:
    """The small demo corpus shipped inside the package (see its DEMO_CORPUS_NOTICE.md)."""
    return Path(__file__).parent / "data" / "demo_corpus.jsonl"
