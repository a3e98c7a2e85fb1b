from __future__ import annotations

import numpy as np
import pytest

from planexec.errors import ConfigError
from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder, get_embedder
from planexec.knowledge.index import VectorIndex


def test_minilm_vectors_are_normalised_and_paraphrases_score_about_065(minilm) -> None:
    v = minilm.embed(["Segment cells and count them", "Count the cells in these images"])
    assert v.shape == (2, minilm.dim) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert 0.55 < float(v[0] @ v[1]) < 0.75
    assert get_embedder("auto") is minilm


def test_cache_embeds_unchanged_text_once(tmp_path, minilm) -> None:
    cached = CachedEmbedder(minilm, tmp_path)
    first = cached.embed(["alpha", "beta", "alpha"])
    assert cached.misses == 2
    again = CachedEmbedder(minilm, tmp_path)  # a new process would see the same file
    second = again.embed(["beta", "alpha"])
    assert again.misses == 0 and again.hits == 2
    assert np.allclose(first[[1, 0]], second)


def test_hashing_embedder_and_bad_model_path(tmp_path) -> None:
    h = HashingEmbedder()
    v = h.embed(["median of each trace", "median of each trace", "otsu threshold"])
    assert np.allclose(v[0], v[1]) and float(v[0] @ v[2]) < 0.5
    (tmp_path / "model.bin").write_text("x")
    with pytest.raises(ConfigError, match="folder"):
        get_embedder(str(tmp_path / "model.bin"))


def test_index_add_remove_search_save_load(tmp_path) -> None:
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(50, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = VectorIndex(16, "m")
    index.add([f"k{i}" for i in range(50)], vecs)
    assert index.search(vecs[7], 1)[0][0] == "k7"
    index.remove(["k7"])
    assert "k7" not in index and index.search(vecs[7], 1)[0][0] != "k7"
    index.add(["k3"], vecs[9:10])  # replacing keeps one entry per id
    assert len(index) == 49 and index.search(vecs[9], 2)[0][0] in {"k3", "k9"}
    index.save(tmp_path)
    loaded = VectorIndex.load(tmp_path)
    assert loaded is not None and loaded.ids() == index.ids() and loaded.model == "m"
    (tmp_path / "index.faiss").write_bytes(b"broken")
    assert VectorIndex.load(tmp_path) is None
