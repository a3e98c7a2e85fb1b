"""Shared sandboxes for the sandbox tests; layers this machine lacks are skipped by name."""

from __future__ import annotations

import os

import pytest

from planexec.sandbox import LAYERS, Sandbox, cgroup, shutdown

CAPS = Sandbox.capabilities()


def needs(*layers: str) -> pytest.MarkDecorator:
    """Skip, naming the layer, when this machine lacks it."""
    missing = [name for name in layers if name not in CAPS.layers]
    reason = "; ".join(f"{name} unavailable: {CAPS.notes.get(name, '')}" for name in missing)
    return pytest.mark.skipif(bool(missing), reason=reason or "available")


@pytest.fixture(scope="session", autouse=True)
def _stop_fork_server():
    yield
    shutdown()


@pytest.fixture(scope="session")
def full() -> Sandbox:
    """Policy plus every kernel layer this machine offers."""
    return Sandbox(timeout=5)


@pytest.fixture(scope="session")
def raw() -> Sandbox:
    """Every kernel layer, policy off: shows the kernel holds when the lint is bypassed."""
    return Sandbox(timeout=5, check_policy=False)


def only(*layers: str, **kw: object) -> Sandbox:
    """Policy off and only `layers` (plus rlimits so runs stay bounded)."""
    chosen = tuple(name for name in LAYERS if name in layers)
    return Sandbox(check_policy=False, layers=chosen, **{"timeout": 5, **kw})


def memory_group_file(pid: int, v1_name: str, v2_name: str) -> str:
    """The path of a file of the memory cgroup `pid` is in (`v1_name` or `v2_name` by version)."""
    where, _ = cgroup.find()
    assert where is not None
    with open(f"/proc/{pid}/cgroup", encoding="ascii") as fh:
        lines = fh.read().splitlines()
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if where.version == 1 and "memory" in controllers.split(","):
            return os.path.join(cgroup.ROOT, "memory", path.lstrip("/"), v1_name)
        if where.version == 2 and controllers == "":
            return os.path.join(cgroup.ROOT, path.lstrip("/"), v2_name)
    raise AssertionError("worker is in no memory cgroup")
