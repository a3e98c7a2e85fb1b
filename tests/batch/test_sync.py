"""Library synchronisation through a git remote: a bare repository on disk and dulwich's git server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import UsageError
from planexec.knowledge.embedder import get_embedder
from planexec.knowledge.store import CapabilityStore
from planexec.knowledge.sync import LibrarySync, init_bare, merge_files

BUILTIN = "compute_dff"


def store(path: Path) -> CapabilityStore:
    return CapabilityStore(path, get_embedder("none"))


def sync(path: Path, remote: str):  # noqa: ANN201 - SyncReport
    return LibrarySync(path, remote).sync()


def add(path: Path, name: str, code: str) -> str:
    s = store(path)
    try:
        return s.save(name=name, description=f"{name} of every value of an array", code=code,
                      inputs=["x"], outputs=["y"])
    finally:
        s.close()


@pytest.fixture()
def clones(tmp_path: Path) -> tuple[Path, Path, str]:
    """Two nodes' stores, both synchronised once with an empty bare remote."""
    a, b, remote = tmp_path / "a", tmp_path / "b", str(tmp_path / "remote.git")
    for p in (a, b):
        store(p).close()
        assert sync(p, remote).pushed
    return a, b, remote


def test_concurrent_additions_merge(clones: tuple[Path, Path, str]) -> None:
    a, b, remote = clones
    sa = add(a, "square", "y = x ** 2")
    sb = add(b, "cube", "y = x ** 3")
    sync(a, remote)
    report = sync(b, remote)
    assert report.merged and report.pushed and not report.conflicts
    sync(a, remote)
    for p in (a, b):
        s = store(p)
        try:
            assert sa in s and sb in s
            assert s.load(sb).code == "y = x ** 3"  # files on disk match the merged commit
        finally:
            s.close()


def test_usage_records_add_up_across_nodes(clones: tuple[Path, Path, str]) -> None:
    a, b, remote = clones
    for path, uses in ((a, [(True, 1.0), (False, 2.0)]), (b, [(True, 4.0)])):
        s = store(path)
        try:
            for ok, seconds in uses:
                s.record_use(BUILTIN, ok, seconds)
        finally:
            s.close()
    sync(a, remote)
    sync(b, remote)
    sync(a, remote)
    for p in (a, b):
        s = store(p)
        try:
            stats = s.stats(BUILTIN)
            assert (stats["runs"], stats["successes"], stats["reuse_count"]) == (3, 2, 3)
            assert stats["mean_seconds"] == pytest.approx(7.0 / 3)
        finally:
            s.close()


def test_conflicting_versions_resolve_by_version_and_keep_the_loser(clones: tuple[Path, Path, str]) -> None:
    a, b, remote = clones
    s = store(a)
    try:
        s.update(BUILTIN, "dff = (roi_traces - baseline) / baseline  # v2", "node a")
        s.update(BUILTIN, "dff = (roi_traces - baseline) / baseline  # v3", "node a again")
    finally:
        s.close()
    s = store(b)
    try:
        s.update(BUILTIN, "dff = roi_traces / baseline - 1  # b's v2", "node b")
    finally:
        s.close()
    sync(a, remote)
    report = sync(b, remote)
    assert report.conflicts == [BUILTIN]
    sync(a, remote)
    for p in (a, b):
        s = store(p)
        try:
            assert s.load(BUILTIN).version == 3 and s.load(BUILTIN).code.endswith("# v3")
            (kept,) = [c for c in s.list(include_archived=True) if c.metadata.get("conflict_of") == BUILTIN]
            assert kept.archived and kept.code.endswith("# b's v2") and kept.version == 2
            assert kept.id not in {c.id for c in s.list()}  # archived: never reused by accident
            assert any("v2" in h["message"] for h in s.history(BUILTIN))  # a's history survives the merge
        finally:
            s.close()


def test_sync_over_git_protocol(tmp_path: Path) -> None:
    from dulwich.repo import Repo
    from dulwich.server import DictBackend, TCPGitServer

    served = Repo(str(init_bare(tmp_path / "served" / "lib.git")))
    server = TCPGitServer(DictBackend({b"/lib.git": served}), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"git://127.0.0.1:{server.server_address[1]}/lib.git"
        a, b = tmp_path / "a", tmp_path / "b"
        store(a).close()
        sa = add(a, "square", "y = x ** 2")
        assert sync(a, url).pushed
        report = sync(b, url)  # a fresh node: its library is a clone of the remote
        assert report.fetched and report.pushed
        sb = add(b, "cube", "y = x ** 3")
        assert sync(b, url).pushed
        sync(a, url)
        s = store(a)
        try:
            assert sa in s and sb in s
        finally:
            s.close()
    finally:
        server.shutdown()
        server.server_close()
        served.close()


@pytest.mark.parametrize("round_", [1, 2])
def test_racing_pushes_lose_nothing(tmp_path: Path, round_: int) -> None:
    remote = str(tmp_path / "remote.git")
    nodes = [tmp_path / f"n{i}" for i in range(4)]
    for p in nodes:
        store(p).close()
    ids: list[str] = []
    errors: list[BaseException] = []

    def work(p: Path, i: int) -> None:
        try:
            ids.append(add(p, f"power{i}", f"y = x ** {i + 2}"))
            assert sync(p, remote).pushed
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(p, i)) for i, p in enumerate(nodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    final = tmp_path / "fresh"
    sync(final, remote)
    s = store(final)
    try:
        assert all(i in s for i in ids) and len(ids) == 4
    finally:
        s.close()


def test_remote_must_be_a_bare_repository(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("x")
    with pytest.raises(UsageError, match="not a bare git repository"):
        init_bare(tmp_path / "notes")


# ---- the merge itself: every node must reach the same library ------------------------------------

def _files(records: dict[str, tuple[int, str, int]]) -> dict[str, bytes]:
    out = {}
    for cap_id, (version, code, runs) in records.items():
        meta = {"id": cap_id, "version": version, "runs": runs, "updated": f"2026-01-0{version}"}
        out[f"capabilities/{cap_id}.json"] = json.dumps(meta).encode()
        out[f"capabilities/{cap_id}.py"] = code.encode()
    return out


record = st.tuples(st.integers(1, 3), st.sampled_from(["a", "b", "c"]), st.integers(0, 5))
library = st.dictionaries(st.sampled_from(["x", "y", "z"]), record, max_size=3)


@settings(max_examples=60, deadline=None)
@given(base=library, ours=library, theirs=library)
def test_merge_is_the_same_from_either_side(base: dict, ours: dict, theirs: dict) -> None:
    one, c1 = merge_files(_files(base), _files(ours), _files(theirs))
    two, c2 = merge_files(_files(base), _files(theirs), _files(ours))
    norm = {k: json.loads(v) if k.endswith(".json") else v for k, v in one.items()}
    assert norm == {k: json.loads(v) if k.endswith(".json") else v for k, v in two.items()}
    assert sorted(c1) == sorted(c2)
    kept_code = {v for k, v in one.items() if k.endswith(".py")}
    for cap_id in ours.keys() & theirs.keys():  # changed on both sides: both versions survive
        if base.get(cap_id) not in (ours[cap_id], theirs[cap_id]):
            assert {ours[cap_id][1].encode(), theirs[cap_id][1].encode()} <= kept_code
