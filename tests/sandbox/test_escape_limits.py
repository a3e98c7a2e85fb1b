"""Escape class 4: limits that must bound what they seem to.

memfd and tmpfs pages are counted by the cgroup memory limit (and memfd_create is denied by
seccomp), the scratch quota bounds all files together (fallocate included), the pids limit
and the worker's own uid bound threads however they are made, and a timeout leaves no
thread running. Each test measures the effect on the host: the kernel's charge for the
worker's group, the bytes/files its scratch holds, its task count, whether it still exists.
"""

from __future__ import annotations

import os
import time

import pytest

from planexec.sandbox import Sandbox, cgroup

from .conftest import memory_group_file, needs, only

ALL = needs("seccomp", "cgroup", "quota", "identity")
MB = 1 << 20


def group_memory_peak(pid: int) -> int:
    """The kernel's peak memory charge of the cgroup `pid` is in (v1 or v2)."""
    with open(memory_group_file(pid, "memory.max_usage_in_bytes", "memory.peak"), encoding="ascii") as fh:
        return int(fh.read())


def threads_of(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


MEMFD = ("import os\nfd = os.memfd_create('hoard')\nos.posix_fallocate(fd, 0, 600 << 20)\n"
         "keep = fd\nresults = {}")


@ALL
def test_memfd_cannot_hold_600mb(tmp_path):
    sb = Sandbox(memory_mb=64, file_mb=32, timeout=20, check_policy=False)
    with sb.session() as s:
        s.run("results = {}")
        pid = s.worker_pid
        r = s.run(MEMFD)
        assert pid is not None
        if s.worker_pid == pid:
            assert group_memory_peak(pid) < 400 * MB
    assert not r.ok


@needs("cgroup")
def test_cgroup_alone_bounds_memfd():
    """Without seccomp the memfd is made, but the memory controller counts and caps it."""
    sb = only("rlimits", "cgroup", memory_mb=64, file_mb=32, timeout=20)
    with sb.session() as s:
        s.run("results = {}")
        pid = s.worker_pid
        r = s.run(MEMFD)
        if s.worker_pid == pid:  # still alive: the charge is readable and below the cap
            assert group_memory_peak(pid) < 400 * MB
        else:  # killed by the memory controller
            assert r.error_type == "WorkerCrashed" and "SIGKILL" in str(r.error)
    assert not r.ok


@pytest.mark.parametrize("how", [
    "for i in range(10):\n    fd = os.open(f'f{i}', os.O_CREAT | os.O_WRONLY)\n    os.posix_fallocate(fd, 0, 32 << 20)",
    "for i in range(10):\n    with open(f'g{i}', 'wb') as fh:\n        fh.write(bytes(30 << 20))",
    "np.zeros(80 << 20, np.uint8).tofile('big.bin')",
    "for i in range(6):\n    np.save(f'a{i}.npy', np.ones(16 << 20, np.uint8))",
])
@needs("quota")
def test_scratch_quota_bounds_all_files_together(how):
    sb = Sandbox(memory_mb=256, file_mb=32, timeout=20, check_policy=False)
    with sb.session() as s:
        r = s.run(f"import os\n{how}")
        usage = s.scratch_usage()
    assert not r.ok
    assert usage is not None and usage[0] <= 33 * MB


@needs("quota")
def test_scratch_quota_bounds_file_count():
    sb = Sandbox(timeout=20, check_policy=False)
    with sb.session() as s:
        r = s.run("for i in range(20000):\n    open(f'n{i}', 'w').close()")
        usage = s.scratch_usage()
    assert not r.ok and usage is not None and usage[1] <= 4096


@needs("quota")
def test_quota_is_fresh_for_the_next_worker():
    sb = Sandbox(memory_mb=256, file_mb=32, timeout=20, check_policy=False)
    sb.run("open('fill', 'wb').write(bytes(31 << 20))")
    r = sb.run("open('fill2', 'wb').write(bytes(20 << 20))\nresults = {'ok': 1}")
    assert r.ok, r.error


THREADS = {
    "threading": ("import threading, time\nts = []\nfor _ in range(2001):\n"
                  "    t = threading.Thread(target=time.sleep, args=(30,), daemon=True)\n"
                  "    t.start()\n    ts.append(t)"),
    "_thread": ("import _thread, time\nfor _ in range(2001):\n"
                "    _thread.start_new_thread(time.sleep, (30,))"),
}


@ALL
@pytest.mark.parametrize("how", sorted(THREADS))
def test_thread_flood_is_bounded_by_the_kernel(how):
    sb = Sandbox(memory_mb=64, timeout=20, check_policy=False)
    with sb.session() as s:
        s.run("results = {}")
        pid = s.worker_pid
        assert pid is not None
        r = s.run(THREADS[how])
        assert not r.ok
        assert threads_of(pid) <= 70


@needs("identity")
def test_identity_alone_bounds_threads():
    """RLIMIT_NPROC binds the worker's own uid even without cgroups or seccomp."""
    sb = only("rlimits", "identity", "namespaces", memory_mb=64, timeout=20)
    with sb.session() as s:
        s.run("results = {}")
        pid = s.worker_pid
        r = s.run(THREADS["threading"])
        assert not r.ok and pid is not None and threads_of(pid) <= 70


@pytest.mark.parametrize("timeout", [1, 2])
def test_no_thread_outlives_its_timeout(raw, timeout):
    with raw.session() as s:
        s.run("results = {}")
        pid = s.worker_pid
        started = time.monotonic()
        r = s.run("import threading, time\n"
                  "threading.Thread(target=lambda: [time.sleep(0.01) for _ in range(10**6)], daemon=True).start()\n"
                  "while True:\n    pass", timeout=timeout)
        elapsed = time.monotonic() - started
        assert r.error_type == "Timeout"
        assert pid is not None and not os.path.exists(f"/proc/{pid}")
    assert elapsed < timeout + 1.5


def test_isolated_run_leaves_no_worker_process(raw):
    before = worker_processes()
    raw.run("import threading, time\nthreading.Thread(target=time.sleep, args=(30,)).start()\nresults = {}")
    deadline = time.monotonic() + 3
    while worker_processes() - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not worker_processes() - before


def worker_processes() -> set[int]:
    """Processes running as a worker uid (IDENTITY_BASE and up)."""
    from planexec.sandbox.confine import IDENTITY_BASE

    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status", encoding="ascii") as fh:
                    for line in fh:
                        if line.startswith("Uid:"):
                            if int(line.split()[1]) >= IDENTITY_BASE:
                                found.add(int(entry))
                            break
            except (OSError, ValueError):
                pass
    return found


def group_of(pid: int) -> str:
    with open(f"/proc/{pid}/cgroup", encoding="ascii") as fh:
        for line in fh:
            _id, controllers, path = line.rstrip("\n").split(":", 2)
            if "pids" in controllers.split(",") or controllers == "":
                return path.rsplit("/", 1)[-1]
    raise AssertionError("no pids group")


@needs("cgroup")
@pytest.mark.parametrize("ending", ["close", "timeout", "crash"])
def test_a_finished_worker_leaves_no_cgroup(raw, ending):
    where, _ = cgroup.find()
    assert where is not None
    s = raw.session()
    s.run("results = {}")
    pid = s.worker_pid
    assert pid is not None
    name = group_of(pid)
    assert name.startswith(cgroup.PREFIX) and os.path.isdir(os.path.join(where.pids, name))
    if ending == "timeout":
        s.run("while True:\n    pass", timeout=1)
    elif ending == "crash":
        s.run("import ctypes\nctypes.string_at(0)")
    s.close()
    deadline = time.monotonic() + 5
    while os.path.exists(os.path.join(where.pids, name)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(os.path.join(where.pids, name))
    assert not os.path.exists(os.path.join(where.memory, name))
