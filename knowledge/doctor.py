"""Checks of a planexec home (`planexec doctor`) and their repairs (`doctor --repair`).

Git is the source of truth for capabilities; everything else in the home is derived and can
be deleted and rebuilt. So a repair breaks stale locks, finishes interrupted writes, deletes
damaged caches and opens the store, which rebuilds them and reconciles the starter library.
History objects that are gone cannot be brought back; when HEAD's own tree is damaged, the
sound capability files on disk are committed again as a new snapshot.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from planexec.knowledge.capfiles import PENDING, CapabilityFiles
from planexec.knowledge.sqlcache import damaged

LOW_SPACE = 100 * 2**20


@dataclass(frozen=True)
class Finding:
    """One check of the home: what was looked at, whether it is sound, and what a repair would do."""

    area: str
    ok: bool
    message: str
    repair: str | None = None
    path: str | None = None
    """The file the finding is about, when it is one file (a cache)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_home(home: Path, seed_dir: Path | None = None) -> list[Finding]:
    """Every check of `home`; nothing is changed."""
    home = Path(home)
    found = _check_folder(home)
    if not home.is_dir():
        return found
    store = home / "capabilities"
    if (store / ".git").is_dir():
        found += _check_store(store, seed_dir)
    found += _check_sqlite(store / ".index" / "catalog.sqlite", "catalog", {"caps", "meta"})
    for cache in (store / ".index" / "embeddings.sqlite", home / "knowledge" / "embeddings.sqlite"):
        found += _check_sqlite(cache, "embedding cache", {"vec"}) + _check_vectors(cache)
    found += _check_rag(home / "knowledge")
    return found


def _check_folder(home: Path) -> list[Finding]:
    if home.exists() and not home.is_dir():
        return [Finding("home", False, f"{home} is a file, not a folder; move it away or set PLANEXEC_HOME")]
    probe = home
    while not probe.exists():
        probe = probe.parent
    out = []
    try:
        fd, name = tempfile.mkstemp(dir=probe, prefix=".doctor.")
        os.close(fd)
        os.unlink(name)
        out.append(Finding("home", True, f"{home} is writable" if home.exists() else f"{home} will be created"))
    except OSError as exc:
        out.append(Finding("home", False, f"{probe} is not writable ({exc.strerror}); runs the library covers "
                                          "still work, nothing new is saved. Remount it or set PLANEXEC_HOME"))
    free = shutil.disk_usage(probe).free
    out.append(Finding("disk", free >= LOW_SPACE, f"{free / 2**20:.0f} MiB free at {probe}"
                       + ("" if free >= LOW_SPACE else "; free some space (runs need room for reports and caches)")))
    return out


def _check_store(store: Path, seed_dir: Path | None) -> list[Finding]:
    from planexec.knowledge.gitstore import GitFiles
    from planexec.knowledge.starters import read_capability_dir, reconcile

    out = []
    git = GitFiles(store)
    try:
        problems = git.fsck(limit=1)
        history = [p for p in git.fsck() if p not in problems]
        out.append(Finding("store", not problems, "git objects of HEAD sound" if not problems else
                           f"{len(problems)} damaged git object(s) in HEAD: {'; '.join(problems[:3])}",
                           None if not problems else "commit the sound capability files on disk as a new snapshot"))
        if history:
            out.append(Finding("history", True, f"{len(history)} git object(s) of older versions are missing or "
                               f"damaged ({'; '.join(history[:3])}); current capabilities are sound, those old "
                               "versions cannot be restored"))
        locks = [p for p in [*(store / ".git").glob("*.lock"), *(store / ".git" / "refs").rglob("*.lock")]]
        out.append(Finding("locks", not locks, "no stale git locks" if not locks else
                           f"{len(locks)} git lock(s) left by a killed writer: {', '.join(p.name for p in locks)}",
                           "remove them while holding the store lock" if locks else None))
        if (store / PENDING).exists():
            out.append(Finding("store", False, "an interrupted write is pending", "finish or roll it back"))
        if problems:
            return out
        files = CapabilityFiles(store, git)
        ids = files.ids_at(git.head())
        bad = sorted(i for i in ids if files.read(i) is None)
        out.append(Finding("capabilities", not bad, f"{len(ids)} capabilities, files sound" if not bad else
                           f"{len(bad)} of {len(ids)} capability files missing or damaged on disk ({', '.join(bad[:4])})",
                           "restore them from git" if bad else None))
        if seed_dir is not None and seed_dir.is_dir():
            rec = reconcile(files, read_capability_dir(seed_dir))
            todo = rec.missing + rec.damaged + rec.updated
            out.append(Finding("starters", not todo, "starter library complete" if not todo else rec.message(),
                               "import them again" if todo else None))
    finally:
        git.close()
    return out


def _read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; on a read-only disk a WAL database opens only as immutable."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.DatabaseError as exc:
        if damaged(exc):
            raise
        return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)


def _check_sqlite(path: Path, what: str, tables: set[str]) -> list[Finding]:
    if not path.exists():
        return []
    try:
        db = _read_only(path)
        try:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            db.close()
        if verdict != "ok" or not tables <= have:
            raise sqlite3.DatabaseError(verdict if verdict != "ok" else f"tables {sorted(have)}")
    except sqlite3.DatabaseError as exc:
        return [Finding(what, False, f"{path} is damaged ({exc})", "delete it; it is rebuilt from its source", str(path))]
    return [Finding(what, True, f"{path.name} sound")]


def _check_vectors(path: Path) -> list[Finding]:
    """Cached vectors of the wrong length, not finite or not unit length (they would be embedded again)."""
    import numpy as np

    if not path.exists():
        return []
    try:
        db = _read_only(path)
        try:
            dims = {r[0]: int(r[1]) for r in db.execute("SELECT k, v FROM meta WHERE k LIKE 'dim:%'")}
            rows = db.execute("SELECT data FROM vec").fetchall()
        finally:
            db.close()
    except (sqlite3.DatabaseError, ValueError):
        return []
    sizes = {4 * d for d in dims.values()} or {max((len(r[0]) for r in rows if isinstance(r[0], bytes)), default=0)}
    bad = 0
    for (blob,) in rows:
        if not isinstance(blob, bytes) or len(blob) not in sizes:
            bad += 1
            continue
        vec = np.frombuffer(blob, dtype=np.float32)
        norm = float(np.linalg.norm(vec)) if np.isfinite(vec).all() else -1.0
        bad += not (norm == 0.0 or abs(norm - 1.0) < 1e-3)
    if bad:
        return [Finding("embedding cache", False, f"{bad} of {len(rows)} cached vectors in {path} are damaged",
                        "delete them; they are embedded again when needed", str(path))]
    return []


def _check_rag(folder: Path) -> list[Finding]:
    from planexec.knowledge.index import VectorIndex

    if not (folder / "index.json").exists() and not (folder / "index.faiss").exists():
        return []
    if VectorIndex.load(folder) is None:
        return [Finding("knowledge index", False, f"the papers index in {folder} is damaged",
                        "delete it; it is rebuilt from the papers on next use")]
    return [Finding("knowledge index", True, "papers index sound")]


def repair_home(home: Path, embedder: Any, seed: Path | bool = True) -> list[str]:
    """Repair what `check_home` finds; returns what was done, one line each."""
    from filelock import FileLock

    from planexec.knowledge.gitstore import GitFiles
    from planexec.knowledge.sqlcache import remove_db
    from planexec.knowledge.store import CapabilityStore

    home = Path(home)
    done: list[str] = []
    findings = check_home(home, None)
    for f in findings:
        if f.ok or f.path is None or not Path(f.path).exists():
            continue
        if "cached vectors" in f.message:
            done.append(f"dropped {_drop_bad_vectors(Path(f.path))} damaged vector(s) from {f.path}")
        else:
            remove_db(Path(f.path))
            done.append(f"deleted damaged cache {f.path} (rebuilt from its source)")
    if any(not f.ok and f.area == "knowledge index" for f in findings):
        for name in ("index.json", "index.faiss", "manifest.json"):
            (home / "knowledge" / name).unlink(missing_ok=True)
        done.append("deleted the damaged papers index (rebuilt on next use)")
    store = home / "capabilities"
    if (store / ".git").is_dir():
        with FileLock(str(store / ".lock"), timeout=30):
            git = GitFiles(store)
            try:
                removed = git.clear_stale_locks()
                if removed:
                    done.append(f"removed {removed} stale git lock(s)")
                if git.fsck(limit=1):
                    _, kept = CapabilityFiles(store, git).resnapshot("damaged git objects in HEAD")
                    done.append(f"committed {kept} sound capability files as a new snapshot")
            finally:
                git.close()
    opened = CapabilityStore(store, embedder, seed=seed)
    try:
        before = len(opened)
        for cap in opened.list(include_archived=True):
            opened.load(cap.id)  # restores damaged files from git
        done.append(f"capability store opened and checked: {before} capabilities")
    finally:
        opened.close()
    return done


def _drop_bad_vectors(path: Path) -> int:
    import numpy as np

    with sqlite3.connect(path) as db:
        dims = {int(r[0]) for r in db.execute("SELECT v FROM meta WHERE k LIKE 'dim:%'")}
        bad = []
        for key, blob in db.execute("SELECT key, data FROM vec"):
            ok = isinstance(blob, bytes) and (not dims or len(blob) in {4 * d for d in dims})
            if ok:
                vec = np.frombuffer(blob, dtype=np.float32)
                norm = float(np.linalg.norm(vec)) if np.isfinite(vec).all() and len(vec) else -1.0
                ok = norm == 0.0 or abs(norm - 1.0) < 1e-3
            if not ok:
                bad.append((key,))
        db.executemany("DELETE FROM vec WHERE key = ?", bad)
    db.close()
    return len(bad)


def summary(findings: list[Finding]) -> dict[str, Any]:
    """Findings as JSON-ready data, with the count of problems."""
    return {"problems": sum(not f.ok for f in findings), "checks": [f.to_dict() for f in findings]}


__all__ = ["Finding", "check_home", "repair_home", "summary"]
