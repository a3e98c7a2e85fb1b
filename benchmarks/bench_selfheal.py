"""What self-healing costs on the hot paths, measured side by side in one process.

    .venv/bin/python benchmarks/bench_selfheal.py

1. Opening a seeded store (warm caches): the starter marker check plus catalog-vs-git ids,
   against opening the same git repository and reading the catalog rows alone.
2. A cached embedding lookup of every phrasing in the library: with the per-vector checks
   (length, finite, unit norm), against the bare SQLite lookup.
3. A full catalog rebuild from git (what a damaged cache costs once), against a warm open.
"""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder
from planexec.knowledge.gitstore import GitFiles
from planexec.knowledge.store import CapabilityStore


def _time(fn: Callable[[], object], repeat: int = 15) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="bench_selfheal."))
    path = root / "store"
    store = CapabilityStore(path, HashingEmbedder())
    texts = [t for c in store.list() for t in c.phrasings()]
    store.close()

    def warm_open() -> None:
        s = CapabilityStore(path, HashingEmbedder())
        len(s)
        s.close()

    def bare_open() -> None:
        git = GitFiles(path)
        git.head()
        db = sqlite3.connect(path / ".index" / "catalog.sqlite")
        db.execute("SELECT data FROM caps").fetchall()
        db.close()
        git.close()

    cache = CachedEmbedder(HashingEmbedder(), path / ".index")
    cache.embed(texts)
    keys = [cache.key(t) for t in texts]

    def checked() -> None:
        cache.embed(texts)

    def bare_lookup() -> None:
        cache._lookup(keys)

    def rebuild() -> None:
        (path / ".index" / "catalog.sqlite").unlink()
        for suffix in ("-wal", "-shm"):
            Path(f"{path / '.index' / 'catalog.sqlite'}{suffix}").unlink(missing_ok=True)
        warm_open()

    rows = [
        ("store open, warm (checked)", _time(warm_open), "git + catalog rows only", _time(bare_open)),
        (f"embed {len(texts)} cached phrasings (checked)", _time(checked), "bare SQLite lookup", _time(bare_lookup)),
        ("catalog rebuilt from git (once per damage)", _time(rebuild, 5), "store open, warm", _time(warm_open)),
    ]
    print(f"{'measured':<46} {'ms':>8}   {'baseline':<26} {'ms':>8}  ratio")
    for name, t, base_name, base in rows:
        print(f"{name:<46} {t * 1e3:>8.2f}   {base_name:<26} {base * 1e3:>8.2f}  {t / base:5.1f}x")
    cache.close()
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
