"""SearChain (Xu et al., WWW 2024) and its ablations.

The ablations switch IR off, or one of its two kinds of interaction (verifying the LLM's
answers, completing its unsolved queries). Before its first question it loads the reader and the
verifier it will use, so missing weights fail at once.
"""

from __future__ import annotations

from typing import Any

from searchain.methods.method import Method, Setup

GRAPH = "searchain.graph.searchain:build_graph"


def load_models(method: Method, setup: Setup) -> dict[str, Any]:
    """The reader (when the method reads passages) and the verifier, loaded.

    And the paper's prompts as published, whatever the model: an evaluation reproduces them.
    """
    from searchain.tools.readers.resolve import resolve_reader
    from searchain.tools.verifiers.resolve import resolve_verifier

    reader = setup.reader
    if method.reads:
        reader = resolve_reader(reader, setup.llm)
        if hasattr(reader, "load"):
            reader.load()
    verifier = resolve_verifier(setup.verifier)
    if hasattr(verifier, "load"):
        verifier.load()  # missing weights fail before the first question
    return {"reader": reader, "verifier": setup.verifier, "chain_prompt": "paper"}


SEARCHAIN_NO_IR = Method(
    "searchain-no-ir",
    GRAPH,
    "SearChain's chain without IR (paper Fig. 8 prompt), answered as written",
    task="no_ir",
    k_field=None,
    uses_ir=False,
    tree=True,
    prepare=load_models,
)
SEARCHAIN = Method(
    "searchain",
    GRAPH,
    "SearChain: Chain-of-Query checked and completed by IR",
    k_field=None,
    tree=True,
    prepare=load_models,
)
SEARCHAIN_NO_VERIFY = Method(
    "searchain-no-verify",
    GRAPH,
    "SearChain without verification: IR completes unsolved queries, corrects nothing",
    {"verify": False},
    k_field=None,
    tree=True,
    prepare=load_models,
)
SEARCHAIN_NO_COMPLETE = Method(
    "searchain-no-complete",
    GRAPH,
    "SearChain without completion: IR corrects answers, the LLM answers unsolved queries",
    {"complete": False},
    k_field=None,
    tree=True,
    prepare=load_models,
)
