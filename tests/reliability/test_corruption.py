"""Every derived file of the capability store and the papers index, damaged: the next open
rebuilds it from git (or the papers), says so, and nothing committed is lost."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from planexec.knowledge.capfiles import CAP_DIR
from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder
from planexec.knowledge.gitstore import GitFiles
from planexec.knowledge.rag import KnowledgeBase, default_papers_dir
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import CapabilityStore, default_seed_dir
from tests.reliability.conftest import record

QUERY = "detect calcium transients in the dF/F traces"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], str]:
    """A seeded store (hashing embedder), its capability ids and the best match for QUERY."""
    path = tmp_path_factory.mktemp("template") / "store"
    store = CapabilityStore(path, HashingEmbedder())
    ids = sorted(c.id for c in store.list(include_archived=True))
    best = store.search(QUERY, 1)[0].capability.id
    store.close()
    return path, ids, best


@pytest.fixture
def store_path(template: tuple[Path, list[str], str], tmp_path: Path) -> Path:
    copy = tmp_path / "store"
    shutil.copytree(template[0], copy)
    return copy


def _garble(path: Path) -> None:
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(0)
    for pos in rng.integers(0, len(data), size=max(64, len(data) // 20)):
        data[int(pos)] = int(rng.integers(0, 256))
    data[:16] = b"garbage garbage!"
    path.write_bytes(bytes(data))


def _sql(path: Path, *statements: str, params: tuple = ()) -> None:
    db = sqlite3.connect(path)
    with db:
        for s in statements:
            db.execute(s, params) if params else db.execute(s)
    db.close()


def _embeddings(store: Path) -> Path:
    return store / ".index" / "embeddings.sqlite"


def _catalog(store: Path) -> Path:
    return store / ".index" / "catalog.sqlite"


def _checkpoint_wal(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _vectors(store: Path, make: Callable[[bytes], bytes]) -> None:
    db = sqlite3.connect(_embeddings(store))
    rows = db.execute("SELECT key, data FROM vec").fetchall()
    with db:
        db.executemany("UPDATE vec SET data=? WHERE key=?", [(make(d), k) for k, d in rows])
    db.close()


def _nan(blob: bytes) -> bytes:
    v = np.frombuffer(blob, dtype=np.float32).copy()
    v[::3] = np.nan
    return v.tobytes()


def _drop_starter(store: Path) -> None:
    git = GitFiles(store)
    first = sorted((store / CAP_DIR).glob("*.json"))[0].stem
    git.commit({f"{CAP_DIR}/{first}.json": None, f"{CAP_DIR}/{first}.py": None}, "lose a starter")
    git.close()
    (store / CAP_DIR / f"{first}.json").unlink()
    (store / CAP_DIR / f"{first}.py").unlink()


def _damage_starter_in_git(store: Path) -> None:
    git = GitFiles(store)
    first = sorted((store / CAP_DIR).glob("*.json"))[1].stem
    git.commit({f"{CAP_DIR}/{first}.json": b'{"id": 3, "inputs": "x"}'}, "damage a starter")
    git.close()


DAMAGE: dict[str, Callable[[Path], None]] = {
    "catalog garbled": lambda s: (_checkpoint_wal(_catalog(s)), _garble(_catalog(s))),
    "catalog emptied": lambda s: (_catalog(s).write_bytes(b""), None),
    "catalog rows deleted behind the head marker": lambda s: _sql(_catalog(s), "DELETE FROM caps WHERE rowid % 3 = 0"),
    "catalog row with wrong types": lambda s: _sql(_catalog(s), "UPDATE caps SET data='{\"id\": 5, \"inputs\": 7}' WHERE rowid = 2"),
    "catalog table with other columns": lambda s: _sql(_catalog(s), "DROP TABLE caps", "CREATE TABLE caps (x, y, z)"),
    "embedding cache garbled": lambda s: (_checkpoint_wal(_embeddings(s)), _garble(_embeddings(s))),
    "embedding vectors of the wrong length": lambda s: _vectors(s, lambda b: b[: len(b) // 2]),
    "embedding vectors with NaN": lambda s: _vectors(s, _nan),
    "embedding vectors scaled (not unit length)": lambda s: _vectors(
        s, lambda b: (np.frombuffer(b, dtype=np.float32) * 7).tobytes()),
    "starter marker garbled": lambda s: (s / ".index" / "starters.json").write_text("{nope"),
    "pending write marker garbled": lambda s: (s / ".pending.json").write_text("\x00\x01 not json"),
    "starter deleted from git": _drop_starter,
    "starter damaged in git": _damage_starter_in_git,
    "index folder deleted": lambda s: shutil.rmtree(s / ".index"),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damaged_cache_is_rebuilt_and_nothing_is_lost(
    kind: str, store_path: Path, template: tuple[Path, list[str], str], caplog: pytest.LogCaptureFixture,
) -> None:
    _, ids, best = template
    DAMAGE[kind](store_path)
    caplog.set_level(logging.WARNING, logger="planexec")
    store = CapabilityStore(store_path, HashingEmbedder())
    try:
        have = sorted(c.id for c in store.list(include_archived=True))
        top = store.search(QUERY, 1)[0].capability.id
        store.record_use(best, True, 0.5)  # the store still takes writes
        lost = len(set(ids) - set(have))
        record(f"derived: {kind}", lost=lost)
        assert lost == 0, f"lost {set(ids) - set(have)}"
        assert top == best, "a damaged cache changed the search result"
        assert all(v is not None and np.isfinite(v).all() for v in [store.embedder.embed([QUERY])[0]])
        assert store.load(best).reuse_count >= 1
        if kind not in ("index folder deleted", "catalog emptied", "starter marker garbled"):  # nothing was damaged
            assert caplog.records, "the repair was not reported"
    finally:
        store.close()


def test_capability_json_with_wrong_types_is_restored_never_committed(store_path: Path,
                                                                       template: tuple[Path, list[str], str]) -> None:
    _, _, best = template
    meta = store_path / CAP_DIR / f"{best}.json"
    data = json.loads(meta.read_text())
    good_description = data["description"]
    data.update(inputs="dff", reuse_count="many", runs=-3)
    meta.write_text(json.dumps(data))
    store = CapabilityStore(store_path, HashingEmbedder())
    try:
        cap = store.load(best)
        assert isinstance(cap.inputs, list) and cap.description == good_description
        store.record_use(best, True, 0.1)
        committed = json.loads(store.git.read(f"{CAP_DIR}/{best}.json") or b"{}")
        assert isinstance(committed["inputs"], list) and isinstance(committed["reuse_count"], int)
        record("capability .json with wrong types", lost=0)
    finally:
        store.close()


def test_user_edits_of_a_starter_are_kept(store_path: Path, template: tuple[Path, list[str], str]) -> None:
    _, _, best = template
    store = CapabilityStore(store_path, HashingEmbedder())
    store.update(best, store.load(best).code + "\n# tuned by the user\n", "user tuning")
    store.close()
    again = CapabilityStore(store_path, HashingEmbedder())
    try:
        assert again.load(best).code.endswith("# tuned by the user\n")
        assert len(again) == len(read_capability_dir(default_seed_dir()))
    finally:
        again.close()


@pytest.fixture(scope="module")
def papers_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("rag")
    kb = KnowledgeBase(default_papers_dir(), folder, embedder=CachedEmbedder(HashingEmbedder(), folder))
    kb.build()
    top = kb.retrieve("how is the baseline for dF/F chosen", k=3).sources
    return folder, top


def _faiss_nan(folder: Path) -> None:
    import faiss

    from planexec.knowledge.index import VectorIndex

    index = VectorIndex.load(folder)
    assert index is not None
    flat = faiss.downcast_index(index._index.index)
    codes = faiss.vector_to_array(flat.codes).view(np.float32).copy()
    codes[::5] = np.nan
    faiss.copy_array_to_vector(codes.view(np.uint8), flat.codes)
    index.save(folder)


RAG_DAMAGE: dict[str, Callable[[Path], object]] = {
    "papers index.faiss garbled": lambda f: _garble(f / "index.faiss"),
    "papers index.json with another dimension": lambda f: (f / "index.json").write_text(
        json.dumps(json.loads((f / "index.json").read_text()) | {"dim": 17})),
    "papers manifest garbled": lambda f: (f / "manifest.json").write_text("[1, 2"),
    "papers manifest chunks of the wrong type": lambda f: (f / "manifest.json").write_text(
        json.dumps(json.loads((f / "manifest.json").read_text()) | {"files": {"a.txt": 3}})),
    "papers index vectors with NaN": _faiss_nan,
}


@pytest.mark.parametrize("kind", list(RAG_DAMAGE))
def test_damaged_papers_index_is_rebuilt(kind: str, papers_index: tuple[Path, list[str]], tmp_path: Path) -> None:
    folder = tmp_path / "rag"
    shutil.copytree(papers_index[0], folder)
    RAG_DAMAGE[kind](folder)
    kb = KnowledgeBase(default_papers_dir(), folder, embedder=CachedEmbedder(HashingEmbedder(), folder))
    report = kb.build()
    assert report.full and report.warnings, "the rebuild was not reported"
    assert kb.retrieve("how is the baseline for dF/F chosen", k=3).sources == papers_index[1]
    record(f"derived: {kind}", lost=0)
