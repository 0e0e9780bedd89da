"""IRCoT (Trivedi et al., ACL 2023) and the baselines its paper runs on its own graph.

Direct and CoT (no retrieval), OneR (one retrieval with the question). Their few-shot
demonstrations, which SearChain's other baselines share, are prepared here (:func:`few_shot`).
"""

from __future__ import annotations

from typing import Any

from searchain.methods.method import Method, Setup
from searchain.prompts.ircot import SHIPPED

GRAPH = "searchain.graph.ircot:build_graph"


def few_shot(method: Method, setup: Setup) -> dict[str, Any]:
    """Few-shot demonstrations of the run's data set, and ``--k`` where the method takes it.

    Built from its tuning split, or IRCoT's published ones (none for the data sets that have
    neither).
    """
    demos = f"paper-{setup.dataset}" if setup.demos == "paper" else setup.dataset
    fields: dict[str, Any] = {"ircot_demos": demos if demos in SHIPPED else ""}
    if setup.k is not None and method.k_field:
        fields[method.k_field] = setup.k
    return fields


DIRECT = Method(
    "direct",
    GRAPH,
    "the LLM answers at once, no retrieval",
    {"ircot_k": 0, "ircot_answer": "direct"},
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
COT = Method(
    "cot",
    GRAPH,
    "chain-of-thought, then the answer; no retrieval",
    {"ircot_k": 0, "ircot_answer": "cot"},
    k_field=None,
    uses_ir=False,
    prepare=few_shot,
)
ONER = Method(
    "oner",
    GRAPH,
    "one retrieval of K (oner_k) paragraphs with the question, then the answer",
    {"ircot_max_steps": 0},
    k_field="oner_k",
    prepare=few_shot,
)
IRCOT = Method(
    "ircot",
    GRAPH,
    "IRCoT: retrieval interleaved with chain-of-thought sentences",
    table1=False,
    prepare=few_shot,
)
