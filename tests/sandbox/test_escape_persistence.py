"""Nothing persists between runs except the declared results: files, IPC, processes, state.

Each test makes a first run leave something behind and checks the host (its temp folder,
its process table) or the next run (a fresh worker) for it. Also the read-only file input
a later issue uses for large movies: the worker maps the host file and cannot change it.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from planexec.sandbox import Sandbox
from planexec.sandbox.handle import SMALL_INPUTS, folder_prefix, memory_folder, sweep_orphans
from planexec.sandbox.wire import EncodeError, ReadOnlyFile

from .conftest import needs

LEAVE_AND_LOOK = {
    "scratch_file": ("open('left.txt', 'w').write('LEFT')",
                     "import os\nresults = {'v': os.path.exists('left.txt')}"),
    "tmp_file": ("import tempfile\nopen(tempfile.gettempdir() + '/left.txt', 'w').write('LEFT')",
                 "import os, tempfile\nresults = {'v': os.path.exists(tempfile.gettempdir() + '/left.txt')}"),
    "environment": ("import os\nos.environ['LEFT'] = '1'",
                    "import os\nresults = {'v': 'LEFT' in os.environ}"),
    "numpy_patch": ("np.mean = lambda *a, **k: 42",
                    "results = {'v': float(np.mean(np.arange(3.0))) == 42}"),
    "builtins_patch": ("import builtins\nbuiltins.len = lambda x: 42",
                       "results = {'v': len([1]) == 42}"),
    "module_attribute": ("import json\njson.LEFT = True",
                         "import json\nresults = {'v': hasattr(json, 'LEFT')}"),
    "global_variable": ("LEFT = 1", "results = {'v': 'LEFT' in globals()}"),
    "sys_path": ("import sys\nsys.path.insert(0, '/tmp/left')",
                 "import sys\nresults = {'v': '/tmp/left' in sys.path}"),
    "matplotlib_rc": ("import matplotlib\nmatplotlib.rcParams['lines.linewidth'] = 42",
                      "import matplotlib\nresults = {'v': matplotlib.rcParams['lines.linewidth'] == 42}"),
    "open_figure": ("fig = plt.figure(999)\nplt.close = lambda *a: None",
                    "results = {'v': 999 in plt.get_fignums()}"),
}


@pytest.mark.parametrize("what", sorted(LEAVE_AND_LOOK))
def test_a_run_leaves_nothing_for_the_next(raw, what):
    leave, look = LEAVE_AND_LOOK[what]
    raw.run(leave)
    r = raw.run(look)
    assert r.ok, r.error
    assert r.results == {"v": False}


def sandbox_dirs(prefix: str = "") -> set[str]:
    """This process's run folders (or those starting with `prefix`) in every place they are made: the
    temp dir and, for small inputs, memory. Other processes' runs do not count."""
    roots = {tempfile.gettempdir(), memory_folder() or tempfile.gettempdir()}
    prefix = prefix or folder_prefix()
    return {os.path.join(r, n) for r in roots for n in os.listdir(r) if n.startswith(prefix)}


def test_scratch_folders_are_removed(raw):
    before = sandbox_dirs()
    for _ in range(3):
        raw.run("open('x.bin', 'wb').write(bytes(1000))\nresults = {}")
    raw.run("results = {}", {"big": np.zeros(SMALL_INPUTS // 8 + 1)})  # a folder in the temp dir
    with raw.session() as s:
        s.run("results = {}")
    assert sandbox_dirs() - before == set()


KILLED_HOST = """
import sys
from planexec.sandbox import Sandbox
print('started', flush=True)
Sandbox().run("import time\\ntime.sleep(60)\\nresults = {}")
"""


def test_a_killed_hosts_folder_is_removed_by_the_next_process(tmp_path):
    """A host killed mid-run cannot clean up; the next process that runs code sweeps its folder."""
    with subprocess.Popen([sys.executable, "-c", KILLED_HOST], stdout=subprocess.PIPE, text=True) as host:
        assert host.stdout is not None and host.stdout.readline().strip() == "started"
        prefix = folder_prefix(host.pid)
        deadline = time.monotonic() + 60
        while not sandbox_dirs(prefix) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = sandbox_dirs(prefix)
        host.send_signal(signal.SIGKILL)
        host.wait()
    assert left and all(os.path.isdir(d) for d in left), "the killed host's folder exists before the sweep"
    removed = {p for root in {os.path.dirname(d) for d in left} for p in sweep_orphans(root)}
    assert left <= removed and not any(os.path.exists(d) for d in left)


def test_the_sweep_spares_live_processes_and_unknown_names(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead = tmp_path / (folder_prefix(int(gone.stdout)) + "abc123")
    mine = tmp_path / (folder_prefix() + "def456")
    parent = tmp_path / (folder_prefix(os.getppid()) + "ghi789")
    old_style = tmp_path / "planexec-sandbox-xyz"
    other = tmp_path / "unrelated-99999999-1-2"
    for d in (dead, mine, parent, old_style, other):
        (d / "work").mkdir(parents=True)
    assert sweep_orphans(str(tmp_path)) == [str(dead)]
    assert not dead.exists() and all(d.exists() for d in (mine, parent, old_style, other))


def test_run_folders_name_their_maker():
    assert folder_prefix().startswith("planexec-sandbox-") and f"-{os.getpid()}-" in folder_prefix()


@needs("namespaces")
def test_worker_tmpfs_is_not_visible_on_the_host(raw):
    """The scratch space lives in the worker's mount namespace: the host's mount table is unchanged."""
    with open("/proc/self/mounts", encoding="ascii") as fh:
        before = fh.read()
    with raw.session() as s:
        s.run("open('x', 'w').write('y')")
        with open("/proc/self/mounts", encoding="ascii") as fh:
            during = fh.read()
    assert "planexec-sandbox-" not in during and before.count("\n") == during.count("\n")


def test_session_close_ends_the_worker(raw):
    s = raw.session()
    s.run("results = {}")
    pid = s.worker_pid
    s.close()
    deadline = time.monotonic() + 3
    while pid is not None and os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pid is not None and not os.path.exists(f"/proc/{pid}")


# --- read-only file inputs (large movies, memory-mapped) -------------------------------------


@pytest.fixture
def movie(tmp_path):
    path = tmp_path / "movie.npy"
    np.save(path, np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    return path


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_only_file_input_is_mapped_not_copied(raw, movie):
    r = raw.run("results = {'s': float(movie.sum()), 'kind': type(movie).__name__, "
                "'w': bool(movie.flags.writeable)}", {"movie": ReadOnlyFile(movie)})
    assert r.ok, r.error
    assert r.results == {"s": 276.0, "kind": "ReleasingMap", "w": False}  # a np.memmap (planexec.sandbox.mapped)


@pytest.mark.parametrize("attack", [
    "movie[0, 0, 0] = 99",
    "movie.setflags(write=True)\nmovie[0, 0, 0] = 99",
    "import os\nopen(path, 'r+b').write(b'x')",
    "import os\nos.truncate(path, 0)",
    "np.save(path, np.zeros(3))",
])
def test_read_only_file_input_cannot_be_changed(raw, movie, attack):
    before = digest(movie)
    raw.run(attack, {"movie": ReadOnlyFile(movie), "path": str(movie)})
    assert digest(movie) == before


def test_read_only_file_must_be_a_plain_npy(tmp_path):
    bad = tmp_path / "objects.npy"
    np.save(bad, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(EncodeError):
        ReadOnlyFile(bad)
    with pytest.raises(EncodeError):
        ReadOnlyFile(tmp_path / "missing.npy")


def test_read_only_file_does_not_open_its_folder(raw, movie):
    (movie.parent / "neighbour.txt").write_text("NEIGHBOUR")
    r = raw.run("results = {'t': open(d + '/neighbour.txt').read()}",
                {"movie": ReadOnlyFile(movie), "d": str(movie.parent)})
    assert not r.ok and "NEIGHBOUR" not in repr(r.results)


def test_read_only_file_in_a_session(movie):
    with Sandbox(timeout=10).session({"movie": ReadOnlyFile(movie)}) as s:
        r = s.run("results = {'m': float(movie.mean())}")
    assert r.ok and r.results == {"m": 11.5}


def test_a_killed_spare_worker_is_replaced(raw):
    """The worker forked ahead of time may die (OOM killer, an admin); the next run still works."""
    import signal

    from planexec.sandbox.forkserver import get_server

    assert raw.run("results = {}").ok
    server = get_server().pid
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                    parent = fh.read().rsplit(")", 1)[1].split()[1]
            except OSError:
                continue
            if parent == str(server):
                os.kill(int(entry), signal.SIGKILL)
    time.sleep(0.1)
    r = raw.run("results = {'v': 7}")
    assert r.ok and r.results == {"v": 7}
