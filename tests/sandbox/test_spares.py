"""Workers prepared ahead of their request: each request still gets exactly its own limits,
run folders live where they are cheap to make and remove, and runs go on if the process
that forks the spares dies. Each test checks the host: a cgroup file, a folder, a process.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time

import numpy as np
import pytest

from planexec.sandbox import Sandbox
from planexec.sandbox.forkserver import get_server
from planexec.sandbox.handle import COW_ROOM, SMALL_INPUTS, memory_folder

from .conftest import memory_group_file, needs

MB = 1 << 20


def memory_limit_of(pid: int) -> int:
    """The memory limit the kernel enforces on the cgroup `pid` is in."""
    with open(memory_group_file(pid, "memory.limit_in_bytes", "memory.max"), encoding="ascii") as fh:
        return int(fh.read())


@needs("cgroup")
def test_each_request_gets_its_own_cgroup_memory_limit():
    """Spares set the last request's limits ahead; lower, higher and equal ones must all hold."""
    for memory_mb in (512, 128, 700, 700):
        sb = Sandbox(memory_mb=memory_mb, file_mb=64, timeout=10, check_policy=False)
        with sb.session() as s:
            assert s.run("results = {}").ok
            assert s.worker_pid is not None
            expected = memory_mb * MB + 64 * MB + COW_ROOM
            assert memory_limit_of(s.worker_pid) == expected, memory_mb


@pytest.mark.skipif(memory_folder() is None, reason="no tmpfs at /dev/shm")
def test_run_folders_are_in_memory_unless_inputs_are_big(raw):
    with raw.session({"small": np.zeros(10)}) as s:
        assert s.run("results = {'n': int(small.size)}").results == {"n": 10}
        small_base = s._worker.base  # noqa: SLF001 - where the run folder is
    with raw.session({"big": np.zeros(SMALL_INPUTS // 8 + 1)}) as s:
        assert s.run("results = {'n': int(big.size)}").ok
        big_base = s._worker.base  # noqa: SLF001
    assert os.path.dirname(small_base) == memory_folder()
    assert os.path.dirname(big_base) == tempfile.gettempdir()
    assert not os.path.exists(small_base) and not os.path.exists(big_base)


def _maker_pid(server: int) -> int:
    """The fork server's first child sharing its process group (workers make their own)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == str(server) and fields[2] == str(server) and fields[0] != "Z":
                found.append(int(entry))
    assert found, "the fork server has no spare maker"
    return min(found)  # made when the server started; a spare just forked has not left yet


def test_runs_go_on_when_the_spare_maker_dies(raw):
    assert raw.run("results = {}").ok
    server = get_server().pid
    assert server is not None
    maker = _maker_pid(server)
    os.kill(maker, signal.SIGKILL)
    other = Sandbox(timeout=5, check_policy=False, layers=("rlimits", "seccomp"))
    for box in (raw, other, raw, other):
        r = box.run("results = {'v': 7}")
        assert r.ok and r.results == {"v": 7}, r.error
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{maker}") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not os.path.exists(f"/proc/{maker}")  # reaped, not left a zombie
    assert _maker_pid(server) != maker  # and replaced
