"""Search-in-the-Chain (SearChain) and IRCoT as LangGraph agents.

Importing the package is cheap: graphs, models and indexes load only when used. Start with
:func:`searchain.graph.searchain.build_graph` and :class:`searchain.context.Context`.
"""

__version__ = "0.1.0"
