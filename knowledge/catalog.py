"""The capability store's rebuildable cache: every capability at one commit in SQLite (so a
process need not re-read the files), and their phrasings in an in-memory vector index.

The cache is only ever a copy of the git repository: `stored_head()` says which commit (and
embedding model) it holds, and the store refills it whenever that differs from HEAD.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planexec.knowledge.capability import Capability, record_problems
from planexec.knowledge.sqlcache import damaged, memory_db, open_cache, remove_db

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy as np

    from planexec.knowledge.index import VectorIndex
    from planexec.protocols import Embedder


class Catalog:
    """Capabilities by id (SQLite at `path`, loaded into `caps`) and a vector index of their phrasings."""

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.path = path
        self.embedder = embedder
        self.head: str | None = None  # the commit loaded into `caps` (and `index`, built on first search)
        self.caps: dict[str, Capability] = {}
        self._index: VectorIndex | None = None
        self._conn: sqlite3.Connection | None = None
        self.writable = True

    @property
    def loaded(self) -> bool:
        """Whether `caps` holds some commit (so a write must update it, and the index once built)."""
        return self.head is not None

    @property
    def index(self) -> VectorIndex:
        """The vector index of the loaded capabilities, built on first use.

        A run whose plan needs no search (a library chain reused as it is) then never imports
        FAISS nor embeds the catalogue's phrasings.
        """
        if self._index is None:
            self.rebuild_index()
        assert self._index is not None
        return self._index

    TABLES = {"caps": ("id", "data"), "meta": ("k", "v")}

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn, self.writable = open_cache(self.path, self.TABLES, "capability catalog")
        return self._conn

    def _reset(self, exc: Exception, memory: bool = False) -> None:
        """The file broke while open (or cannot be written): start a new one, in memory if need be."""
        log.warning("capability catalog %s failed (%s); rebuilding it from git", self.path, exc)
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        if memory or (isinstance(exc, sqlite3.DatabaseError) and not damaged(exc)):
            self._conn, self.writable = memory_db(self.TABLES), False
            return
        try:
            remove_db(self.path)
        except OSError:
            self._conn, self.writable = memory_db(self.TABLES), False

    def stored_head(self) -> str | None:
        """The commit the SQLite cache holds, or None when unknown, damaged or made with another model."""
        try:
            row = self._db().execute("SELECT v FROM meta WHERE k='head'").fetchone()
            model = self._db().execute("SELECT v FROM meta WHERE k='model'").fetchone()
        except sqlite3.DatabaseError as exc:
            self._reset(exc)
            return None
        return row[0] if row and model and model[0] == self.embedder.name else None

    def store(self, head: str | None, caps: Iterable[Capability] = (), *, clear: bool = False) -> None:
        """Write `caps` and mark the cache as holding `head` (None: stale), in one transaction."""
        rows = [(c.id, json.dumps(c.to_json() | {"code": c.code})) for c in caps]
        for attempt in range(3):
            db = self._db()
            try:
                with db:
                    if clear:
                        db.execute("DELETE FROM caps")
                    db.executemany("INSERT OR REPLACE INTO caps VALUES (?, ?)", rows)
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head or "",))
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('model', ?)", (self.embedder.name,))
                return
            except sqlite3.DatabaseError as exc:
                if attempt == 2:
                    raise
                self._reset(exc, memory=attempt == 1 or not damaged(exc))
                clear = True  # a new (or in-memory) database starts empty; only a full refill is sound

    def refill(self, head: str | None, caps: Iterable[Capability]) -> None:
        """Replace the SQLite contents with `caps` as of `head` (marked stale first, in case of a crash)."""
        caps = list(caps)
        self.store(None)
        self.store(head, caps, clear=True)

    def load(self, head: str | None, expected: set[str] | None = None) -> bool:
        """Read every capability from SQLite into memory and rebuild the vector index.

        False (nothing loaded) when the rows are damaged or their ids differ from `expected`
        (the ids in git at `head`): then the caller refills the cache from git.
        """
        caps = {}
        try:
            for (data,) in self._db().execute("SELECT data FROM caps").fetchall():
                record = json.loads(data)
                code = record.pop("code", "")
                if record_problems(record) or not isinstance(code, str):
                    raise ValueError(f"bad record {str(record.get('id'))[:40]!r}")
                cap = Capability.from_json(record, code)
                caps[cap.id] = cap
        except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError) as exc:
            log.warning("capability catalog %s is damaged (%s); rebuilding it from git", self.path, exc)
            if isinstance(exc, sqlite3.DatabaseError):
                self._reset(exc)
            return False
        if expected is not None and set(caps) != expected:
            lost, extra = len(expected - set(caps)), len(set(caps) - expected)
            log.warning("capability catalog %s disagrees with git (%d missing, %d extra); rebuilding it",
                        self.path, lost, extra)
            return False
        self.caps = caps
        self._index = None
        self.head = head
        return True

    def apply(self, head: str, caps: Sequence[Capability]) -> None:
        """Take in capabilities just committed as `head`: SQLite, memory and index."""
        self.store(head, caps)
        self.caps.update({c.id: c for c in caps})
        if self._index is not None:  # else the first search builds it with these in
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
        self._index = index

    def _index_caps(self, caps: Sequence[Capability]) -> None:
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
