"""A BERT sentence encoder (all-MiniLM-L6-v2 and its kin) run in numpy, for fast start-up.

Loading torch and sentence-transformers costs about 7 s per process, while embedding a
request with this model is a few milliseconds of matrix products. This module reads the same
packaged weights (memory-mapped safetensors, so opening costs no copy) and the same
tokenizer (the Rust `tokenizers` library), and computes the same mean-pooled, normalised
vectors as sentence-transformers (cosine >= 0.999, checked in the tests).
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from planexec.errors import ConfigError

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file as a read-only array over one memory map."""
    with open(path, "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    (size,) = struct.unpack("<Q", mapped[:8])
    header = json.loads(mapped[8 : 8 + size])
    base = 8 + size
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = _DTYPES[info["dtype"]]
        out[name] = np.frombuffer(mapped, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize,
                                  offset=base + start).reshape(info["shape"])
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to about 1e-7 (Abramowitz & Stegun 7.1.26 refined): float32 needs no more."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an optional speed-up: without it the result is the same
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


class NumpyBertEncoder:
    """Mean-pooled BERT sentence embeddings from a sentence-transformers model folder."""

    def __init__(self, folder: str | Path, name: str | None = None, max_length: int | None = None) -> None:
        self.folder = Path(folder)
        self.name = name or self.folder.name
        try:
            self.config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
            st = self.folder / "sentence_bert_config.json"
            st_config = json.loads(st.read_text(encoding="utf-8")) if st.exists() else {}
        except (OSError, ValueError) as exc:
            raise ConfigError(f"embedding model folder {self.folder} is unreadable ({exc}); reinstall it") from None
        if self.config.get("model_type") != "bert":
            raise ConfigError(f"{self.folder}: not a BERT model; use the sentence-transformers runtime")
        self.max_length = int(max_length or st_config.get("max_seq_length") or 256)
        self.dim = int(self.config["hidden_size"])
        self._weights: dict[str, np.ndarray] | None = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[dict[str, np.ndarray], Any]:
        with self._lock:
            if self._weights is None:
                from tokenizers import Tokenizer

                try:
                    tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                    weights = read_safetensors(self.folder / "model.safetensors")
                except Exception as exc:  # tokenizers raises bare Exception for a bad file
                    raise ConfigError(f"embedding model in {self.folder} is damaged ({exc}); reinstall it") from None
                tokenizer.no_padding()
                tokenizer.enable_truncation(max_length=self.max_length)
                self._tokenizer = tokenizer
                self._weights = {k.removeprefix("bert."): v for k, v in weights.items()}
            return self._weights, self._tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        cores = os.cpu_count() or 1
        if len(texts) <= 4 or os.getloadavg()[0] >= cores - 0.5:
            # Few texts are latency-bound, and on a busy machine BLAS threads spin waiting for
            # each other (a batch ran 11x slower with two threads than with one at load 13).
            with _one_blas_thread():
                return self._embed(texts)
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        weights, tokenizer = self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = tokenizer.encode_batch(list(texts))
        # Texts of similar length share a batch, so little work goes into padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), 32):
            rows = order[start : start + 32]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for r, i in enumerate(rows):
                enc = encodings[i]
                ids[r, : len(enc.ids)] = enc.ids
                types[r, : len(enc.ids)] = enc.type_ids
                mask[r, : len(enc.ids)] = 1.0
            out[rows] = self._forward(weights, ids, types, mask)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    def _forward(self, w: dict[str, np.ndarray], ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        cfg = self.config
        eps = float(cfg.get("layer_norm_eps", 1e-12))
        heads = int(cfg["num_attention_heads"])
        batch, width = ids.shape
        head_dim = self.dim // heads
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:width][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(head_dim))

        def dense(h: np.ndarray, name: str) -> np.ndarray:
            return h @ w[f"{name}.weight"].T + w[f"{name}.bias"]

        def split(h: np.ndarray) -> np.ndarray:
            return h.reshape(batch, width, heads, head_dim).transpose(0, 2, 1, 3)

        for layer in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{layer}"
            q = split(dense(x, f"{p}.attention.self.query"))
            k = split(dense(x, f"{p}.attention.self.key"))
            v = split(dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attn = scores / scores.sum(axis=-1, keepdims=True)
            ctx = (attn @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.dim)
            x = _layer_norm(dense(ctx, f"{p}.attention.output.dense") + x,
                            w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"], eps)
            hidden = _gelu(dense(x, f"{p}.intermediate.dense"))
            x = _layer_norm(dense(hidden, f"{p}.output.dense") + x,
                            w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps)
        summed = (x * mask[:, :, None]).sum(axis=1)
        return (summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)).astype(np.float32)
