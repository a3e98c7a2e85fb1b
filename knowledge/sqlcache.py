"""SQLite caches that heal themselves: a damaged file is deleted and rebuilt, a table with the
wrong columns is recreated, and an unwritable home falls back to reading the file as is (or to
memory), so a cache can slow a run down but never stop it. The caches hold only derived data.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger(__name__)

_UNWRITABLE = ("readonly", "read-only", "unable to open", "disk is full", "disk i/o", "locking protocol")


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether the error says the file's content is broken (rather than the disk being unwritable)."""
    text = str(exc).lower()
    return not any(word in text for word in _UNWRITABLE)


def remove_db(path: Path) -> None:
    """Delete the database and its WAL/shared-memory companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _ensure(db: sqlite3.Connection, tables: Mapping[str, tuple[str, ...]], create: bool) -> None:
    """Create missing tables; a table whose columns differ from `tables` is dropped and created again."""
    for name, columns in tables.items():
        have = tuple(row[1] for row in db.execute(f"PRAGMA table_info({name})"))
        if have == columns:
            continue
        if not create:
            raise sqlite3.DatabaseError(f"table {name} has columns {have}, expected {columns}")
        if have:
            log.warning("cache table %s had columns %s; recreated", name, have)
            db.execute(f"DROP TABLE {name}")
        db.execute(f"CREATE TABLE {name} ({', '.join(columns)}, PRIMARY KEY ({columns[0]}))")


def _connect(path: Path, tables: Mapping[str, tuple[str, ...]]) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=60, check_same_thread=False)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header: garbage fails here
        # Switching to WAL takes an exclusive lock and does not wait for one: several
        # connections opening at once retry briefly; WAL then persists in the file.
        for attempt in range(50):
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if attempt == 49 or "locked" not in str(exc):
                    raise
                time.sleep(0.02)
        db.execute("PRAGMA synchronous=NORMAL")
        with db:
            _ensure(db, tables, create=True)
    except BaseException:
        db.close()
        raise
    return db


def open_cache(path: Path, tables: Mapping[str, tuple[str, ...]], what: str) -> tuple[sqlite3.Connection, bool]:
    """A connection to the cache at `path` and whether it is writable; never raises for a bad file.

    `tables` maps each table to its columns (the first is the primary key).
    """
    try:
        return _connect(path, tables), True
    except sqlite3.DatabaseError as exc:
        if damaged(exc):
            log.warning("%s %s was damaged (%s); rebuilding it", what, path, exc)
            try:
                remove_db(path)
                return _connect(path, tables), True
            except (OSError, sqlite3.DatabaseError) as again:
                log.warning("%s %s cannot be rebuilt there (%s); using memory", what, path, again)
                return memory_db(tables), False
    except OSError:
        pass
    # Unwritable (read-only or full disk): read the file as it is, if it is sound; else memory.
    if path.is_file():
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True, check_same_thread=False)
            _ensure(db, tables, create=False)
            log.info("%s %s is read-only here; using it as it is", what, path)
            return db, False
        except sqlite3.DatabaseError:
            pass
    log.info("%s %s cannot be written here; using memory", what, path)
    return memory_db(tables), False


def memory_db(tables: Mapping[str, tuple[str, ...]]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)
    _ensure(db, tables, create=True)
    return db
