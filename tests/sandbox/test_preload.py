"""The fork server says ready before it has loaded everything: a worker forked that early
still has every module it may use, and the server loads the rest while idle."""

from __future__ import annotations

import subprocess
import sys
import time

from planexec.sandbox import Sandbox, shutdown
from planexec.sandbox.forkserver import get_server
from planexec.sandbox.preload import EARLY, LATER

STDLIB_SNAPSHOT = """
import sys, sysconfig
from planexec.sandbox import preload

std = sysconfig.get_paths()["stdlib"]

def stdlib_modules():
    found = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name in sys.builtin_module_names or (path.startswith(std) and "site-packages" not in path):
            found.add(name)
    return found

preload.load_early()
before = stdlib_modules()
preload.load_later()
print(sorted(stdlib_modules() - before))
"""


def test_later_imports_load_no_stdlib_module_a_worker_could_not_read_itself() -> None:
    # the stdlib may sit under a home the worker's uid cannot enter; site-packages it may read
    out = subprocess.run([sys.executable, "-I", "-c", STDLIB_SNAPSHOT], capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_worker_forked_before_the_server_loaded_everything_uses_later_modules() -> None:
    shutdown()  # a new server: the first request comes while LATER is still loading
    run = Sandbox(timeout=60).run(
        "from scipy import signal, stats\n"
        "from skimage import filters, measure\n"
        "x = np.zeros(50); x[[10, 30]] = 1.0\n"
        "peaks, _ = signal.find_peaks(x)\n"
        "labels = measure.label(np.eye(4, dtype=bool), connectivity=1)\n"
        "results = {'peaks': peaks.tolist(), 'skew': float(stats.skew(x)),\n"
        "           'otsu': float(filters.threshold_otsu(np.array([0.0, 0.0, 1.0, 1.0]))),\n"
        "           'regions': int(labels.max())}\n"
    )
    assert run.ok, run.error
    assert run.results["peaks"] == [10, 30]
    assert abs(run.results["skew"] - 4.69486) < 1e-4
    assert 0.0 <= run.results["otsu"] < 1.0
    assert run.results["regions"] == 4


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def _maps(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def test_the_spare_maker_loads_the_rest_and_the_server_stays_small() -> None:
    shutdown()
    assert Sandbox(timeout=30).run("results = {'n': int(np.arange(3).sum())}").results == {"n": 3}
    server = get_server().pid
    assert server is not None
    last = LATER[-1].replace(".", "/") + "/"  # its compiled extensions show in a process's maps
    assert LATER[-1] not in EARLY
    deadline = time.monotonic() + 60
    while not any(last in _maps(child) for child in _children(server)) and time.monotonic() < deadline:
        time.sleep(0.2)
    makers = [child for child in _children(server) if last in _maps(child)]
    assert makers, "no process loaded LATER"
    assert last not in _maps(server)
    deadline = time.monotonic() + 30  # the maker takes its priority back once it has warmed up
    while {_nice(pid) for pid in makers} != {_nice(server)} and time.monotonic() < deadline:
        time.sleep(0.2)
    assert {_nice(pid) for pid in makers} == {_nice(server)}  # spares it forks are not slowed


def _nice(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[16])
