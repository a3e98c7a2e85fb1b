"""Unit tests of the self-healing parts: sqlite caches, capability records, starters, recovery, fsck."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.knowledge.capability import Capability, record_problems
from planexec.knowledge.capfiles import CAP_DIR, PENDING, CapabilityFiles
from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder
from planexec.knowledge.gitstore import GitFiles
from planexec.knowledge.sqlcache import damaged, open_cache
from planexec.knowledge.starters import reconcile

TABLES = {"vec": ("key", "data")}


def test_garbled_cache_file_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"x" * 5000)
    db, writable = open_cache(path, TABLES, "test cache")
    assert writable and "damaged" in caplog.text
    db.execute("INSERT INTO vec VALUES ('a', x'00')")
    db.close()


def test_table_with_other_columns_is_recreated(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE vec (x, y, z)")
    raw.commit()
    raw.close()
    db, _ = open_cache(path, TABLES, "test cache")
    assert [r[1] for r in db.execute("PRAGMA table_info(vec)")] == ["key", "data"]
    db.close()


def test_unwritable_place_falls_back_to_memory(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    db, writable = open_cache(tmp_path / "afile" / "c.sqlite", TABLES, "test cache")
    assert not writable
    db.execute("INSERT INTO vec VALUES ('a', x'00')")  # memory still takes writes for this process


def test_damaged_tells_content_from_disk_errors() -> None:
    assert damaged(sqlite3.DatabaseError("file is not a database"))
    assert not damaged(sqlite3.OperationalError("attempt to write a readonly database"))
    assert not damaged(sqlite3.OperationalError("database or disk is full"))


def test_bad_cached_vectors_are_embedded_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = CachedEmbedder(HashingEmbedder(), tmp_path)
    good = cache.embed(["alpha beta", "gamma"])
    db = sqlite3.connect(cache.path)
    with db:
        keys = [cache.key("alpha beta"), cache.key("gamma")]
        db.execute("UPDATE vec SET data=? WHERE key=?", (b"\0" * 12, keys[0]))
        db.execute("UPDATE vec SET data=? WHERE key=?", (np.full(384, np.nan, np.float32).tobytes(), keys[1]))
    db.close()
    caplog.set_level(logging.WARNING)
    again = CachedEmbedder(HashingEmbedder(), tmp_path)
    np.testing.assert_allclose(again.embed(["alpha beta", "gamma"]), good, atol=1e-6)
    assert again.rejected == 2 and "embedded again" in caplog.text
    cache.close()
    again.close()


_VALID = Capability(id="x", name="x", description="does x", inputs=["a"], outputs=["b"], code="b = a").to_json()
_FIELDS = st.sampled_from(["inputs", "outputs", "tags", "examples", "version", "reuse_count", "runs",
                           "successes", "total_seconds", "archived", "metadata", "description", "last_used"])
_WRONG = st.one_of(st.text(max_size=3).filter(lambda t: not t.strip()), st.integers(-5, -1), st.just([1, 2]),
                   st.just({"a": 1}), st.just(float("nan")), st.just(3.5))


@settings(max_examples=60, deadline=None)
@given(field=_FIELDS, value=_WRONG)
def test_records_with_wrong_types_are_refused(field: str, value: object) -> None:
    record = dict(_VALID) | {field: value}
    acceptable = {  # values of a kind the field legitimately holds
        "inputs": value == [], "description": False, "metadata": isinstance(value, dict),
        "total_seconds": value == 3.5, "last_used": isinstance(value, str),
    }
    if acceptable.get(field):
        return
    assert record_problems(record), (field, value)


def test_a_valid_record_has_no_problems() -> None:
    assert record_problems(_VALID) == []
    assert record_problems([]) == ["the record is not a JSON object"]


def _files(tmp_path: Path) -> CapabilityFiles:
    git = GitFiles(tmp_path)
    return CapabilityFiles(tmp_path, git)


def _cap(cid: str, code: str = "y = x") -> Capability:
    return Capability(id=cid, name=cid, description=f"does {cid}", inputs=["x"], outputs=["y"], code=code,
                      origin="builtin")


def test_reconcile_imports_missing_and_damaged_updates_pristine_keeps_edits(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.write_many([_cap("pristine"), _cap("edited"), _cap("broken")], "seed")
    edited = _cap("edited", "y = 2 * x")
    edited.version = 2
    files.write_many([edited], "user edit")
    files.git.commit({f"{CAP_DIR}/broken.json": b'{"id": "broken", "inputs": 3}'}, "damage")
    shipped = [_cap("pristine", "y = x + 0"), _cap("edited", "y = x + 1"), _cap("broken"), _cap("new")]
    found = reconcile(files, shipped)
    assert found.missing == ["new"] and found.damaged == ["broken"]
    assert found.updated == ["pristine"] and found.kept_edits == ["edited"]


def test_interrupted_multi_capability_write_is_rolled_back_as_a_whole(tmp_path: Path) -> None:
    files = _files(tmp_path)
    a, b = _cap("a"), _cap("b")
    files.write_many([a, b], "seed")
    a.reuse_count, b.reuse_count = 1, 1
    texts = {f"{CAP_DIR}/{c.id}.json": json.dumps(c.to_json(), indent=2, sort_keys=True) + "\n" for c in (a, b)}
    from planexec.knowledge.fsutil import sha256_text

    (tmp_path / PENDING).write_text(json.dumps({"ids": ["a", "b"],
                                                "files": {k: sha256_text(v) for k, v in texts.items()}}))
    (tmp_path / CAP_DIR / "a.json").write_text(texts[f"{CAP_DIR}/a.json"])  # killed before b was written
    files.recover(lambda: None)
    assert files.read("a").reuse_count == 0 and files.read("b").reuse_count == 0  # type: ignore[union-attr]
    (tmp_path / PENDING).write_text(json.dumps({"ids": ["a", "b"],
                                                "files": {k: sha256_text(v) for k, v in texts.items()}}))
    for rel, text in texts.items():
        (tmp_path / rel).write_text(text)  # killed after both files, before the commit
    files.recover(lambda: None)
    assert json.loads(files.git.read(f"{CAP_DIR}/b.json") or b"{}")["reuse_count"] == 1


def test_a_usage_record_finished_by_recovery_is_not_counted_again(tmp_path: Path) -> None:
    """A run killed after writing its usage files but before the commit: recovery commits them with the run's
    token, so the resumed run does not count its reuse a second time (tests/reliability/test_kills.py)."""
    from planexec.knowledge.store import CapabilityStore

    store = CapabilityStore(tmp_path / "store", HashingEmbedder())
    cap_id = store.save(name="count", description="count the cells", code="n_cells = 1\n")
    files = store._files
    cap = files.read(cap_id)
    assert cap is not None
    cap.reuse_count, cap.runs, cap.successes = 1, 1, 1
    text = json.dumps(cap.to_json(), indent=2, sort_keys=True) + "\n"
    from planexec.knowledge.fsutil import sha256_text

    rel = f"{CAP_DIR}/{cap_id}.json"
    (tmp_path / "store" / PENDING).write_text(json.dumps({"ids": [cap_id], "files": {rel: sha256_text(text)},
                                                          "message": f"Reuse capability {cap_id} [run-7]"}))
    (tmp_path / "store" / rel).write_text(text)  # killed after the file, before the commit
    files.recover(lambda: None)
    again = CapabilityStore(tmp_path / "store", HashingEmbedder())
    again.record_uses([(cap_id, True, 0.1)], token="run-7")
    assert again.load(cap_id).reuse_count == 1


def test_fsck_finds_a_missing_blob_and_head_soundness(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.write_many([_cap("a")], "seed")
    assert files.git.fsck() == [] and files.git.head_sound()
    blob = files.git.repo.object_store[files.git.repo.object_store[files.git.head().encode()].tree]  # type: ignore[union-attr]
    sub = files.git.repo.object_store[blob[CAP_DIR.encode()][1]]
    sha = sub[b"a.py"][1].decode()
    (tmp_path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    assert any("missing file capabilities/a.py" in p for p in files.git.fsck())
    assert files.git.read(f"{CAP_DIR}/a.py") is None


def test_a_repository_init_killed_halfway_is_started_over(tmp_path: Path) -> None:
    # What a kill inside dulwich's Repo.init leaves: .git without its object store, and our staging folder.
    (tmp_path / ".git" / "refs").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/master\n")
    (tmp_path / ".git-init-x1" / ".git").mkdir(parents=True)
    git = GitFiles(tmp_path)
    assert git.head() is None and (tmp_path / ".git" / "objects").is_dir()
    assert not list(tmp_path.glob(".git-init-*"))
    sha = git.commit({"a.txt": b"kept"}, "first")
    git.close()
    reopened = GitFiles(tmp_path)  # a whole repository is left alone
    assert reopened.head() == sha and reopened.read("a.txt") == b"kept"
