"""Several processes writing at once, and a writer killed with SIGKILL mid-save."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.store import CapabilityStore

WRITER = """
import sys
from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.store import CapabilityStore
store = CapabilityStore(sys.argv[1], HashingEmbedder(), seed=False)
for i in range(int(sys.argv[3])):
    store.save(name=f"w{sys.argv[2]} step {i}", description=f"writer {sys.argv[2]} computes statistic number {i}",
               code=f"x = {i}\\n" * 50)
    print(i, flush=True)
"""


def _spawn(path: Path, name: str, n: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(n)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_four_processes_times_25_saves_lose_nothing(tmp_path: Path) -> None:
    procs = [_spawn(tmp_path / "s", str(p), 25) for p in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    store = CapabilityStore(tmp_path / "s", HashingEmbedder(), seed=False)
    assert len(store) == 100
    adds = [c for c in store.git.log() if c.message.startswith("Add capability")]
    assert len(adds) == 100
    assert len(list((tmp_path / "s" / "capabilities").glob("*.py"))) == 100
    store.close()


def test_kill_9_mid_save_leaves_a_store_that_opens(tmp_path: Path) -> None:
    path = tmp_path / "k"
    CapabilityStore(path, HashingEmbedder(), seed=False).close()
    for round_no in range(3):
        proc = _spawn(path, f"k{round_no}", 1000)
        assert proc.stdout is not None
        proc.stdout.readline()  # at least one save finished; now kill it in the middle of others
        time.sleep(0.05 * (round_no + 1))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        store = CapabilityStore(path, HashingEmbedder(), seed=False)
        caps = store.list()
        for cap in caps:
            loaded = store.load(cap.id)
            assert loaded.code.startswith("x = ") or loaded.name.startswith("after kill")
        committed = [c for c in store.git.log() if c.message.startswith(("Add", "Recover"))]
        assert len(caps) >= round_no + 1 and len(committed) >= 1
        new_id = store.save(name=f"after kill {round_no}", description=f"check the store still writes {round_no}")
        assert new_id in store
        store.close()
