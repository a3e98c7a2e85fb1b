"""`planexec doctor` finds each kind of damage in the home and says what it would repair;
`doctor --repair` repairs it, after which doctor finds nothing."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from planexec.cli import cli as planexec_cli
from planexec.knowledge.capfiles import CAP_DIR
from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder
from planexec.knowledge.gitstore import GitFiles
from planexec.knowledge.rag import KnowledgeBase, default_papers_dir
from planexec.knowledge.store import CapabilityStore
from tests.reliability.conftest import record


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLANEXEC_EMBEDDER", "none")
    path = Path(os.environ["PLANEXEC_HOME"])
    store = CapabilityStore(path / "capabilities", HashingEmbedder())
    assert len(store) > 0  # builds the catalog
    assert store.search("count the cells")  # the first search builds the index and the embedding cache
    store.close()
    kb = KnowledgeBase(default_papers_dir(), path / "knowledge",
                       embedder=CachedEmbedder(HashingEmbedder(), path / "knowledge"))
    kb.build()
    return path


def _doctor(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(planexec_cli, ["doctor", "--json", *args])
    return result.exit_code, json.loads(result.output)["home"]


def _damage(home: Path) -> None:
    store = home / "capabilities"
    index = store / ".index"
    (index / "catalog.sqlite").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{index / 'catalog.sqlite'}{suffix}").unlink(missing_ok=True)
    db = sqlite3.connect(index / "embeddings.sqlite")
    with db:
        for key, blob in db.execute("SELECT key, data FROM vec LIMIT 5").fetchall():
            vec = np.frombuffer(blob, dtype=np.float32).copy()
            vec[0] = np.nan
            db.execute("UPDATE vec SET data=? WHERE key=?", (vec.tobytes(), key))
    db.close()
    git = GitFiles(store)
    victim = sorted((store / CAP_DIR).glob("*.json"))[0].stem
    git.commit({f"{CAP_DIR}/{victim}.json": None, f"{CAP_DIR}/{victim}.py": None}, "lose a starter")
    git.close()
    (store / ".git" / "refs" / "heads" / "master.lock").write_text("")
    (store / CAP_DIR / f"{sorted((store / CAP_DIR).glob('*.py'))[2].stem}.py").write_text("broken(")
    (home / "knowledge" / "index.faiss").write_bytes(b"\x00" * 64)


def test_doctor_finds_every_damage_and_repair_fixes_it(home: Path) -> None:
    code, clean = _doctor()
    assert code == 0, clean
    _damage(home)
    code, found = _doctor()
    failing = {c["area"] for c in found["checks"] if not c["ok"]}
    expected = {"catalog", "embedding cache", "locks", "starters", "capabilities", "knowledge index"}
    record("doctor: damage found", tried=len(expected), unclear=len(expected - failing))
    assert code == 1 and expected <= failing, found
    assert all(c["repair"] for c in found["checks"] if not c["ok"])
    code, repaired = _doctor("--repair")
    assert code == 0, repaired
    assert repaired["repaired"]
    code, after = _doctor()
    assert code == 0 and after["problems"] == 0, after
    store = CapabilityStore(home / "capabilities", HashingEmbedder())
    try:
        assert len(store) == len(list((home / "capabilities" / CAP_DIR).glob("*.json")))
        assert not store.git.fsck()
    finally:
        store.close()


def test_doctor_text_says_what_it_would_repair(home: Path) -> None:
    (home / "capabilities" / ".git" / "HEAD.lock").write_text("")
    result = CliRunner().invoke(planexec_cli, ["doctor"])
    assert result.exit_code == 1
    assert "would repair: remove them while holding the store lock" in result.output
    assert "planexec doctor --repair" in result.output
