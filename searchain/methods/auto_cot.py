"""Auto-CoT (Zhang et al., ICLR 2023), with demonstrations built from the tuning questions.

Built before the run's first question.
Questions are embedded (all-MiniLM-L6-v2, Auto-CoT's Sentence-BERT) and clustered with k-means
into ``k`` clusters; in each cluster, questions are tried nearest the centre first, each given a
Zero-Shot-CoT rationale by the LLM the method will run with, and the first that passes the
paper's heuristics (at most 60 words, a rationale of at most 5 steps, an answer) is kept. Only
tuning questions are used, so no reported question is a demonstration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from searchain.methods.ircot import few_shot
from searchain.methods.method import Method, Setup

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

CLUSTERS = 8
"""Demonstrations (clusters): Auto-CoT's 8 for most of its data sets."""
TRIES = 3
"""Questions tried per cluster before it is given up (bounds the LLM calls; the paper's code
tries on until one passes)."""
MAX_WORDS = 60
MAX_STEPS = 5
"""The paper's heuristics: questions of at most 60 words, rationales of at most 5 steps (a step
is a sentence, and a line of its own is one too: list items, equations)."""
VERSION = 3
"""Changes when the choice of demonstrations does, so cached ones are built again."""


def build_auto_cot_demos(
    questions: Sequence[str],
    llm: BaseChatModel,
    *,
    k: int = CLUSTERS,
    seed: int = 0,
    on_cluster: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """One demonstration per cluster of ``questions``: ``{question, rationale, answer}``."""
    # The graph's nodes and the embedder, imported only when demonstrations are built.
    from searchain.nodes.baselines.auto_cot import zero_shot_cot
    from searchain.nodes.shared import completed_answer
    from searchain.text import split_sentences
    from searchain.tools.embeddings import embed

    unique = list(dict.fromkeys(q.strip() for q in questions if q.strip()))
    if len(unique) < k:
        raise ValueError(
            f"Auto-CoT clusters {k} ways: give at least {k} questions, not {len(unique)}"
        )
    vectors = embed(unique)  # the semantic extra (with scikit-learn), or its one-line hint
    from sklearn.cluster import KMeans

    kmeans = KMeans(n_clusters=k, random_state=seed, n_init=10).fit(vectors)
    distances = kmeans.transform(vectors)
    demos = []
    for cluster in range(k):
        members = [i for i, label in enumerate(kmeans.labels_) if label == cluster]
        members.sort(key=lambda i: distances[i][cluster])
        for i in members[:TRIES]:
            question = unique[i]
            rationale, reply = zero_shot_cot(llm, question)
            answer = completed_answer(reply)
            steps = sum(len(split_sentences(line)) for line in rationale.splitlines())
            if len(question.split()) <= MAX_WORDS and 0 < steps <= MAX_STEPS and answer:
                demos.append({"question": question, "rationale": rationale, "answer": answer})
                break
        if on_cluster:
            on_cluster(cluster)
    return demos


def prepare(method: Method, setup: Setup) -> dict[str, Any]:
    """IRCoT's demonstrations, and Auto-CoT's, built with the run's LLM.

    Once per data set and model, kept in the run's cache (a rerun or another split reuses them).
    """

    def build() -> list[dict[str, Any]]:
        return build_auto_cot_demos([r.question for r in setup.tuning()], setup.llm)

    return {
        **few_shot(method, setup),
        "auto_cot_demos": str(setup.cached("auto-cot", build, VERSION)),
    }


AUTO_COT = Method(
    "auto-cot",
    "searchain.graph.baselines:build_auto_cot",
    "Auto-CoT: Zero-Shot-CoT after demonstrations clustered from the tuning questions",
    k_field=None,
    uses_ir=False,
    prepare=prepare,
)
