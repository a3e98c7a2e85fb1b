"""A CLI run exits without waiting for the sandbox server's clean-up, and the server still
cleans up: it stops, and leaves no scratch anchor or cgroup behind."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import time
from pathlib import Path

from planexec.sandbox import cgroup
from tests.core.helpers import REPO


def _servers_working_in(folder: Path) -> set[int]:
    """Fork servers run with their matplotlib cache folder (under the home) as working folder."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd") == str(folder):
                    found.add(int(entry))
            except OSError:
                pass
    return found


def _left_by(pid: int) -> list[str]:
    where, _ = cgroup.find()
    groups = glob.glob(os.path.join(where.memory, f"{cgroup.PREFIX}{pid}-*")) if where else []
    anchors = glob.glob(f"/dev/shm/planexec-scratch-{pid}-*") + glob.glob(f"/tmp/planexec-scratch-{pid}-*")
    return groups + anchors


def test_the_cli_exits_and_the_sandbox_server_cleans_up_after_itself(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PLANEXEC_HOME": str(home),
           "PLANEXEC_OUTPUT_ROOT": str(tmp_path / "out")}
    cli = [sys.executable, "-c", "from planexec.cli import main; main()"]
    subprocess.run([*cli, "demo-data", str(tmp_path / "demo")], env=env, check=True, capture_output=True)
    log = tmp_path / "run.txt"
    with log.open("wb") as fh:
        proc = subprocess.Popen([*cli, "run", "Count the cells in the images", "--images", str(tmp_path / "demo")],
                                cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
        servers: set[int] = set()
        while proc.poll() is None:
            servers |= _servers_working_in(home / "cache" / "matplotlib")
            time.sleep(0.02)
    assert proc.returncode == 0, log.read_text()
    assert servers, "no sandbox server was seen during the run"
    deadline = time.monotonic() + 20
    while (_servers_working_in(home / "cache" / "matplotlib") or any(_left_by(p) for p in servers)) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _servers_working_in(home / "cache" / "matplotlib")
    assert not [left for pid in servers for left in _left_by(pid)]
