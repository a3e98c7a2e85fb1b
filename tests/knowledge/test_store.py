from __future__ import annotations

import json
from pathlib import Path

import pytest

from planexec.errors import EnvironmentFailure, UnknownNameError, UsageError
from planexec.knowledge.capability import Capability
from planexec.knowledge.store import CapabilityStore, default_seed_dir

DFF = Capability(
    id="", name="dF/F with 10th percentile baseline",
    description="Compute ΔF/F for each cell using the 10th percentile of its trace as baseline",
    inputs=["traces"], outputs=["dff"],
    code="import numpy as np\nf0 = np.percentile(traces, 10, axis=1, keepdims=True)\ndff = (traces - f0) / f0\n",
)


@pytest.fixture
def store(tmp_path: Path, minilm) -> CapabilityStore:
    s = CapabilityStore(tmp_path / "store", minilm, seed=False)
    yield s
    s.close()


def _commits(store: CapabilityStore) -> list[str]:
    return [c.message for c in store.git.log()]


def test_save_search_reuse_history(store: CapabilityStore) -> None:
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    assert cap_id.startswith("df_f_with_10th_percentile_baseline_")
    match = store.find_reusable("Convert the traces to dF/F, F0 = 10th percentile", inputs=["traces"], outputs=["dff"])
    assert match is not None and match.capability.id == cap_id and match.io_agreement == 1.0
    assert store.find_reusable("Compute ΔF/F using the 20th percentile of each trace as baseline") is None
    store.record_use(cap_id, ok=True, seconds=0.2)
    store.record_use(cap_id, ok=False, seconds=0.4)
    stats = store.stats(cap_id)
    assert (stats["reuse_count"], stats["runs"], stats["successes"]) == (2, 2, 1)
    assert stats["mean_seconds"] == pytest.approx(0.3) and stats["last_used"]
    messages = [h["message"] for h in store.history(cap_id)]
    assert messages[0].startswith("Reuse capability") and "failed" in messages[0]
    assert messages[-1].startswith(f"Add capability {cap_id}")
    assert len(messages) == 3


def test_update_keeps_versions_and_archive_hides(store: CapabilityStore) -> None:
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    new_code = DFF.code.replace("keepdims=True", "keepdims=True) + 1e-9 * (0")
    store.update(cap_id, new_code, "guard against a zero baseline")
    cap = store.load(cap_id)
    assert cap.version == 2 and cap.code == new_code
    hist = store.history(cap_id)
    assert [h["version"] for h in hist] == [2, 1] and "guard" in hist[0]["message"]
    assert store.code_at(cap_id, hist[1]["commit"]) == DFF.code
    store.archive(cap_id)
    assert len(store) == 0 and store.search("dF/F percentile baseline") == []
    assert store.list(include_archived=True)[0].archived
    assert _commits(store)[0] == f"Archive capability {cap_id}"


def test_deleted_and_corrupted_files_are_restored_from_git(tmp_path: Path, minilm) -> None:
    store = CapabilityStore(tmp_path / "s", minilm, seed=False)
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    store.close()
    files = tmp_path / "s" / "capabilities"
    (files / f"{cap_id}.py").unlink()
    (files / f"{cap_id}.json").write_text("{ not json")
    reopened = CapabilityStore(tmp_path / "s", minilm, seed=False)
    assert reopened.load(cap_id).code == DFF.code
    assert json.loads((files / f"{cap_id}.json").read_text())["id"] == cap_id
    (files / f"{cap_id}.py").write_text("dff = 'tampered'\n")  # fails the recorded code hash
    assert reopened.load(cap_id).code == DFF.code
    reopened.close()


def test_unknown_id_lists_close_matches_and_path_must_be_folder(store: CapabilityStore, tmp_path: Path) -> None:
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    with pytest.raises(UnknownNameError, match=cap_id):
        store.load(cap_id[:-3])
    with pytest.raises(UnknownNameError):
        store.history("nothing_like_it")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(EnvironmentFailure, match="is a file"):
        len(CapabilityStore(tmp_path / "afile", seed=False))
    with pytest.raises(UsageError, match="sort"):
        store.list(sort_by="colour")


def test_builtin_capabilities_are_imported_in_one_commit(tmp_path: Path, minilm) -> None:
    seed = sorted(default_seed_dir().glob("*.json"))
    if not seed:
        pytest.skip("no data/capabilities yet")
    store = CapabilityStore(tmp_path / "b", minilm)
    assert len(store) == len(seed)
    assert sum(m.startswith("Import") for m in _commits(store)) == 1
    assert all(c.origin == "builtin" for c in store.list())
    store.close()


def test_index_cache_is_rebuilt_when_deleted(tmp_path: Path, minilm) -> None:
    store = CapabilityStore(tmp_path / "c", minilm, seed=False)
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    store.close()
    for f in (tmp_path / "c" / ".index").glob("catalog*"):
        f.unlink()
    again = CapabilityStore(tmp_path / "c", minilm, seed=False)
    assert again.search("ΔF/F with a 10th percentile baseline")[0].capability.id == cap_id
    again.close()


def test_record_uses_counts_a_run_in_one_commit(store: CapabilityStore) -> None:
    cap_id = store.save(Capability(**{**DFF.__dict__}))
    before = len(_commits(store))
    store.record_uses([(cap_id, True, 0.2), (cap_id, False, 0.4)])
    assert len(_commits(store)) == before + 1 and _commits(store)[0].startswith(f"Reuse {cap_id} (1/2 ok)")
    stats = store.stats(cap_id)
    assert (stats["reuse_count"], stats["runs"], stats["successes"]) == (2, 2, 1)
    with pytest.raises(KeyError):
        store.record_uses([("no_such_capability", True, 0.1)])
