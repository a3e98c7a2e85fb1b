"""MemoryStore, the in-memory fake of the capability store: the same Store seam, no git or model."""

from __future__ import annotations

import pytest

from planexec.errors import UnknownNameError
from planexec.knowledge import CapabilityStore, MemoryStore
from planexec.knowledge.capability import Capability
from planexec.protocols import Store

MEAN = Capability("mean_image", "mean image", "Average the movie over time",
                  inputs=["images"], outputs=["mean_image"], code="mean_image = images.mean(axis=0)",
                  examples=["compute the mean image"])


def test_both_stores_satisfy_the_store_seam() -> None:
    assert isinstance(MemoryStore(), Store)
    assert issubclass(CapabilityStore, Store)


def test_reuse_is_decided_by_a_plain_function() -> None:
    store = MemoryStore([MEAN])
    match = store.find_reusable("Compute the mean image")
    assert match is not None and match.capability.id == "mean_image" and match.reusable
    assert store.find_reusable("count the cells") is None
    always = MemoryStore([MEAN], reuse=lambda description, cap: True)
    assert always.find_reusable("anything") is not None


def test_save_load_and_record_uses_once_per_token() -> None:
    store = MemoryStore()
    cap_id = store.save(name="sum", description="Sum the values", code="total = sum(values)")
    assert store.load(cap_id).code == "total = sum(values)" and [c.id for c in store.list()] == [cap_id]
    store.record_uses([(cap_id, True, 0.5)], token="run 1")
    store.record_uses([(cap_id, True, 0.5)], token="run 1")
    assert store.load(cap_id).runs == 1 and store.load(cap_id).total_seconds == pytest.approx(0.5)
    with pytest.raises(UnknownNameError, match="no capability 'nope'"):
        store.load("nope")
