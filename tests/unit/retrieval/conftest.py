"""Fixtures the retrieval tests share."""

from __future__ import annotations

import pytest

from searchain.tools.retrieval.embedded.indexer import workers


@pytest.fixture
def to_workers(monkeypatch):
    """Every batch encoded by a worker process: none here first, none while they start."""
    monkeypatch.setattr(workers, "LOCAL_BATCHES", 0)
    monkeypatch.setattr(workers, "WHILE_STARTING", False)
