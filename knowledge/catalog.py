"""The capability store's rebuildable cache: every capability at one commit in SQLite (so a
process need not re-read the files), and their phrasings in an in-memory vector index.

The cache is only ever a copy of the git repository: `stored_head()` says which commit (and
embedding model) it holds, and the store refills it whenever that differs from HEAD.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planexec.knowledge.capability import Capability

if TYPE_CHECKING:
    import numpy as np

    from planexec.knowledge.index import VectorIndex
    from planexec.protocols import Embedder


class Catalog:
    """Capabilities by id (SQLite at `path`, loaded into `caps`) and a vector index of their phrasings."""

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.path = path
        self.embedder = embedder
        self.head: str | None = None  # the commit loaded into `caps` and `index`
        self.caps: dict[str, Capability] = {}
        self.index: VectorIndex | None = None
        self._conn: sqlite3.Connection | None = None

    @property
    def loaded(self) -> bool:
        """Whether `caps` and `index` hold some commit (so a write must update them too)."""
        return self.head is not None and self.index is not None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS caps (id TEXT PRIMARY KEY, data TEXT)")
            db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
            self._conn = db
        return self._conn

    def stored_head(self) -> str | None:
        """The commit the SQLite cache holds, or None when unknown or made with another model."""
        row = self._db().execute("SELECT v FROM meta WHERE k='head'").fetchone()
        model = self._db().execute("SELECT v FROM meta WHERE k='model'").fetchone()
        return row[0] if row and model and model[0] == self.embedder.name else None

    def store(self, head: str | None, caps: Iterable[Capability] = ()) -> None:
        """Write `caps` and mark the cache as holding `head` (None: stale), in one transaction."""
        db = self._db()
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO caps VALUES (?, ?)",
                [(c.id, json.dumps(c.to_json() | {"code": c.code})) for c in caps],
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head or "",))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('model', ?)", (self.embedder.name,))

    def refill(self, head: str | None, caps: Iterable[Capability]) -> None:
        """Replace the SQLite contents with `caps` as of `head` (marked stale first, in case of a crash)."""
        self.store(None)
        self._db().execute("DELETE FROM caps")
        self.store(head, caps)

    def load(self, head: str | None) -> None:
        """Read every capability from SQLite into memory and rebuild the vector index."""
        caps = {}
        for (data,) in self._db().execute("SELECT data FROM caps").fetchall():
            record = json.loads(data)
            cap = Capability.from_json(record, record.pop("code", ""))
            caps[cap.id] = cap
        self.caps = caps
        self.rebuild_index()
        self.head = head

    def apply(self, head: str, caps: Sequence[Capability]) -> None:
        """Take in capabilities just committed as `head`: SQLite, memory and index."""
        self.store(head, caps)
        self.caps.update({c.id: c for c in caps})
        self._index_caps(caps)
        self.head = head

    def rebuild_index(self) -> None:
        """Embed the phrasings of every capability that is not archived into a new index."""
        from planexec.knowledge.index import VectorIndex

        index = VectorIndex(self.embedder.dim, self.embedder.name)
        keys, texts = [], []
        for cap in self.caps.values():
            if not cap.archived:
                for n, text in enumerate(cap.phrasings()):
                    keys.append(f"{cap.id}#{n}")
                    texts.append(text)
        if keys:
            index.add(keys, self.embedder.embed(texts))
        self.index = index

    def _index_caps(self, caps: Sequence[Capability]) -> None:
        assert self.index is not None
        stale = [k for k in self.index.ids() if k.split("#", 1)[0] in {c.id for c in caps}] if len(caps) < 50 else None
        if stale is None:
            self.rebuild_index()
            return
        self.index.remove(stale)
        keys, texts = [], []
        for cap in caps:
            if not cap.archived:
                keys += [f"{cap.id}#{n}" for n in range(len(cap.phrasings()))]
                texts += cap.phrasings()
        if keys:
            self.index.add(keys, self.embedder.embed(texts))

    def nearest(self, vector: np.ndarray, n: int) -> dict[str, float]:
        """Capability id -> best cosine among the `n` phrasings nearest to `vector`."""
        assert self.index is not None
        best: dict[str, float] = {}
        for key, score in self.index.search(vector, n):
            cap_id = key.split("#", 1)[0]
            best[cap_id] = max(score, best.get(cap_id, -1.0))
        return best

    def close(self) -> None:
        """Close the SQLite connection and forget the loaded commit (the next use reloads)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self.head = None
