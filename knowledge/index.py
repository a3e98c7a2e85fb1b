"""A FAISS inner-product index over normalised vectors with stable string ids, deletions,
and save/load beside a JSON metadata file. It is a cache: always rebuildable from its source."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.knowledge.fsutil import atomic_write_bytes, atomic_write_text

if TYPE_CHECKING:
    import numpy as np


class VectorIndex:
    """Cosine search (inner product of unit vectors) keyed by string ids."""

    def __init__(self, dim: int, model: str = "", meta: dict[str, Any] | None = None) -> None:
        import faiss

        self.dim = dim
        self.model = model
        self.meta: dict[str, Any] = dict(meta or {})
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._ids: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, key: str) -> bool:
        return key in self._ids

    def ids(self) -> list[str]:
        return list(self._ids)

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Add or replace the vectors stored under `keys`."""
        import numpy as np

        if not len(keys):
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(keys), self.dim)
        self.remove([k for k in keys if k in self._ids])
        nums = np.arange(self._next, self._next + len(keys), dtype=np.int64)
        self._next += len(keys)
        for k, n in zip(keys, nums, strict=True):
            self._ids[k] = int(n)
            self._names[int(n)] = k
        self._index.add_with_ids(vectors, nums)

    def remove(self, keys: Sequence[str]) -> int:
        import numpy as np

        nums = [self._ids.pop(k) for k in keys if k in self._ids]
        for n in nums:
            del self._names[n]
        if nums:
            self._index.remove_ids(np.asarray(nums, dtype=np.int64))
        return len(nums)

    def search(self, query: np.ndarray, k: int = 5) -> list[tuple[str, float]]:
        """The `k` nearest ids of one query vector, best first, with cosine scores."""
        import numpy as np

        if not self._ids or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        scores, nums = self._index.search(q, min(k, len(self._ids)))
        return [(self._names[int(n)], float(s)) for s, n in zip(scores[0], nums[0], strict=True) if n >= 0]

    def vector(self, key: str) -> np.ndarray:
        return self._index.reconstruct(self._ids[key])

    def save(self, directory: Path | str) -> None:
        """Write `index.faiss` and `index.json` (ids, model, dim, meta) atomically."""
        import faiss

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(directory / "index.faiss", bytes(faiss.serialize_index(self._index)))
        info = {"dim": self.dim, "model": self.model, "next": self._next, "ids": self._ids, "meta": self.meta}
        atomic_write_text(directory / "index.json", json.dumps(info))

    @classmethod
    def load(cls, directory: Path | str) -> VectorIndex | None:
        """The index saved in `directory`, or None when missing, unreadable or inconsistent (rebuild it)."""
        import faiss
        import numpy as np

        directory = Path(directory)
        try:
            info = json.loads((directory / "index.json").read_text())
            raw = np.frombuffer((directory / "index.faiss").read_bytes(), dtype=np.uint8)
            index = faiss.deserialize_index(raw)
        except (OSError, ValueError, RuntimeError, KeyError):
            return None
        try:
            obj = cls(int(info["dim"]), info.get("model", ""), info.get("meta"))
            if not _sound(index, obj.dim, info["ids"]):
                return None
            obj._index = index
            obj._ids = {str(k): int(v) for k, v in info["ids"].items()}
            obj._names = {v: k for k, v in obj._ids.items()}
            obj._next = int(info["next"])
        except (ValueError, TypeError, KeyError, AttributeError, RuntimeError):
            return None
        return obj


def _sound(index: Any, dim: int, ids: dict[str, int]) -> bool:
    """Whether a loaded index agrees with its metadata: dimension, count, ids, finite unit vectors."""
    import faiss
    import numpy as np

    if index.d != dim or index.ntotal != len(ids) or not isinstance(ids, dict):
        return False
    if not hasattr(index, "id_map"):
        return False
    stored = faiss.vector_to_array(index.id_map)
    if set(stored.tolist()) != {int(v) for v in ids.values()}:
        return False
    flat = faiss.downcast_index(index.index)
    vectors = faiss.vector_to_array(flat.codes).view(np.float32).reshape(-1, dim) if index.ntotal else np.zeros((0, dim))
    if not np.isfinite(vectors).all():
        return False
    norms = np.linalg.norm(vectors, axis=1)
    return bool(np.all((np.abs(norms - 1.0) < 1e-3) | (norms == 0.0)))
