"""Shared fixtures: the real MiniLM model, loaded once per test session."""

from __future__ import annotations

import pytest

from planexec.knowledge.embedder import get_embedder


@pytest.fixture(scope="session")
def minilm():
    """The packaged all-MiniLM-L6-v2 (process-wide, so loaded once)."""
    emb = get_embedder("auto")
    emb.embed(["warm up"])
    return emb
