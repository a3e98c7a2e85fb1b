"""The shipped card vectors cover every text the coverage decision scores against, match the model, and a
missing, damaged or foreign file only means the texts are embedded as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from planexec.card_vectors import card_texts, shipped_vectors, vectors_path, write_vectors


class Letters:
    """A tiny embedder: a text's vector counts its first letters (enough to tell texts apart)."""

    name = "letters"
    dim = 4

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for c in t.lower()[:8]:
                out[i, ord(c) % self.dim] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_the_shipped_file_holds_every_text_a_clause_is_scored_against() -> None:
    vectors = shipped_vectors("all-MiniLM-L6-v2")
    missing = [t for t in card_texts() if t not in vectors]
    assert missing == [], f"{len(missing)} texts lack a vector: HF_HUB_OFFLINE=1 python -m planexec.card_vectors"


def test_the_shipped_vectors_are_the_models(minilm) -> None:
    vectors = shipped_vectors(minilm.name)
    sample = card_texts()[::700]
    np.testing.assert_allclose(np.stack([vectors[t] for t in sample]), minilm.embed(sample), atol=1e-4)


def test_another_model_a_missing_or_a_damaged_file_gives_nothing(tmp_path: Path) -> None:
    assert shipped_vectors("another-model") == {}
    written = write_vectors(Letters(), tmp_path / "v.npz")
    assert written != vectors_path()
    mine = shipped_vectors("letters", written)
    assert set(mine) == set(card_texts()) and shipped_vectors("all-MiniLM-L6-v2", written) == {}
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    assert shipped_vectors("letters", tmp_path / "bad.npz") == {}
    assert shipped_vectors("letters", tmp_path / "none.npz") == {}
