"""cgroup memory and pids limits for a worker (cgroup v2, or the v1 memory/pids hierarchies).

Unlike RLIMIT_AS, the memory controller counts what the worker makes the kernel hold for it:
anonymous memory, memfd and tmpfs pages (its scratch quota) and page cache, so the limit is
`memory + scratch quota + room for copied warm pages`. The pids controller bounds threads
however they are made (raw clone included). Each worker gets its own group under the fork
server's, named by the server; the server removes it once the worker has been reaped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

ROOT = "/sys/fs/cgroup"
PREFIX = "planexec-"


@dataclass(frozen=True)
class Hierarchy:
    """Where this process's groups live: one v2 directory, or the v1 memory and pids ones."""

    version: int
    memory: str
    pids: str


def _own_paths() -> dict[str, str]:
    paths = {}
    try:
        with open("/proc/self/cgroup", encoding="ascii") as fh:
            for line in fh:
                _id, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else [""]:
                    paths[name] = path
    except OSError:
        pass
    return paths


@lru_cache(maxsize=1)
def find() -> tuple[Hierarchy | None, str]:
    """The hierarchy workers' groups go in, or None and the reason (nothing is changed)."""
    paths = _own_paths()
    if "" in paths and os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        here = os.path.join(ROOT, paths[""].lstrip("/"))
        try:
            with open(os.path.join(here, "cgroup.subtree_control"), encoding="ascii") as fh:
                enabled = fh.read().split()
        except OSError:
            enabled = []
        if {"memory", "pids"} <= set(enabled) and os.access(here, os.W_OK):
            return Hierarchy(2, here, here), f"cgroup v2 at {here}"
        return None, (f"cgroup v2 at {here} does not delegate memory and pids to child groups "
                      "(cgroup.subtree_control) or is not writable")
    mem = os.path.join(ROOT, "memory", paths.get("memory", "/").lstrip("/"))
    pids = os.path.join(ROOT, "pids", paths.get("pids", "/").lstrip("/"))
    if "memory" in paths and "pids" in paths and os.access(mem, os.W_OK) and os.access(pids, os.W_OK):
        return Hierarchy(1, mem, pids), f"cgroup v1 memory ({mem}) and pids ({pids})"
    return None, f"no writable cgroup memory+pids controllers under {ROOT}"


def _write(path: str, value: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(value)


def join(name: str) -> Hierarchy:
    """Create the group `name` (no limits yet) and move the calling process into it."""
    where, reason = find()
    if where is None:
        raise OSError(reason)
    for base in {where.memory, where.pids}:
        path = os.path.join(base, name)
        os.makedirs(path, exist_ok=True)
        _write(os.path.join(path, "cgroup.procs"), "0")
    return where


def enter(name: str, memory_bytes: int, max_tasks: int) -> None:
    """Be in the group `name` (joining it if a spare worker has not yet) and set its limits
    (again, if a spare set others ahead)."""
    where = join(name)
    mem = os.path.join(where.memory, name)
    pids = os.path.join(where.pids, name)
    if where.version == 2:
        _write(os.path.join(mem, "memory.max"), str(memory_bytes))
        _write(os.path.join(mem, "memory.swap.max"), "0")
        _write(os.path.join(pids, "pids.max"), str(max_tasks))
        return
    swap = os.path.join(mem, "memory.memsw.limit_in_bytes")
    if os.path.exists(swap):  # memsw must stay >= the memory limit: change in the safe order
        with open(os.path.join(mem, "memory.limit_in_bytes"), encoding="ascii") as fh:
            raising = memory_bytes > int(fh.read())
        order = [swap, "memory.limit_in_bytes"] if raising else ["memory.limit_in_bytes", swap]
        for file in order:
            _write(os.path.join(mem, file), str(memory_bytes))
    else:
        _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_bytes))
    _write(os.path.join(pids, "pids.max"), str(max_tasks))


def remove(name: str) -> bool:
    """Remove the group `name` (its processes must be gone); False if the kernel still holds it."""
    where, _ = find()
    if where is None or not name.startswith(PREFIX):
        return True
    gone = True
    for base in {where.memory, where.pids}:
        try:
            os.rmdir(os.path.join(base, name))
        except FileNotFoundError:
            pass
        except OSError:
            gone = False  # EBUSY for a moment after the last task exits: retried later
    return gone


def remove_stale(server_pid: int) -> None:
    """Remove groups left by fork servers that are gone (a crash skips their cleanup)."""
    where, _ = find()
    if where is None:
        return
    for base in {where.memory, where.pids}:
        try:
            names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
        except OSError:
            continue
        for n in names:
            owner = n[len(PREFIX):].split("-", 1)[0]
            if owner.isdigit() and int(owner) != server_pid and not os.path.exists(f"/proc/{owner}"):
                try:
                    os.rmdir(os.path.join(base, n))
                except OSError:
                    pass


def tasks(name: str) -> list[int]:
    """Pids still in the group (for tests and doctor); empty when the group is gone."""
    where, _ = find()
    if where is None:
        return []
    try:
        with open(os.path.join(where.pids, name, "cgroup.procs"), encoding="ascii") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []
