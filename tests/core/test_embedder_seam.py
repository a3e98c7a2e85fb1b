"""The embedder is injected (Orchestrator(embedder=...)), not looked up from the configured name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from planexec import Orchestrator
from planexec.knowledge.embedder import HashingEmbedder
from planexec.protocols import Embedder
from tests.core.helpers import SALES, fast_config


class CountingEmbedder:
    """Keyword vectors, counting the texts it was asked to embed."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = "counting", self.inner.dim
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_the_offline_planner_scores_with_the_injected_embedder(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    assert isinstance(embedder, Embedder)
    config = fast_config(home=tmp_path / "home", write_outputs=False, tool_learning=False)  # embedder "none"
    Orchestrator(config=config, embedder=embedder).run(f"Analyze {SALES} and tell me the average revenue")
    assert embedder.texts > 0, "the coverage decision scored with the injected embedder"
