"""Helpers of the reliability suite: a small tmpfs per test (full and read-only homes), the CLI in a
real subprocess, a tally of damage tried / lost / unclear error printed at the end of the session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

PLANEXEC = str(Path(sys.executable).parent / "planexec")
TALLY: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # kind -> [tried, lost, unclear error]


def record(kind: str, lost: int = 0, unclear: int = 0, tried: int = 1) -> None:
    """Count one damage of `kind`: how many committed things it lost, whether its error was unclear."""
    row = TALLY[kind]
    row[0] += tried
    row[1] += lost
    row[2] += unclear


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TALLY:
        return
    terminalreporter.write_sep("-", "reliability: damage tried / lost / unclear error")
    for kind, (tried, lost, unclear) in sorted(TALLY.items()):
        terminalreporter.write_line(f"{kind:<56} {tried:>4} {lost:>4} {unclear:>4}")


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[callable]:  # type: ignore[valid-type]
    """mount(size) -> a fresh tmpfs folder of that size, unmounted at the end (root only)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mounted: list[Path] = []

    def mount(size: str = "8m") -> Path:
        target = tmp_path / f"mnt{len(mounted)}"
        target.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(target)
        return target

    yield mount
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def remount(path: Path, mode: str) -> None:
    """Remount a tmpfs from `tmpfs` read-only ('ro') or writable ('rw')."""
    subprocess.run(["mount", "-o", f"remount,{mode}", str(path)], check=True, capture_output=True)


def fill(path: Path) -> Path:
    """Fill the file system holding `path` to the last byte; returns the filler file."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def cli_env(home: Path, outputs: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PLANEXEC_HOME=str(home), PLANEXEC_OUTPUT_ROOT=str(outputs), PLANEXEC_EMBEDDER="none",
               PLANEXEC_LLM="none", HF_HUB_OFFLINE="1")
    return env


def cli(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`planexec ARGS` in a real subprocess."""
    return subprocess.run([PLANEXEC, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd="/")


def unclear(done: subprocess.CompletedProcess[str]) -> int:
    """1 when a failed command's stderr is not exactly one `Error:` line naming the fix (0 when clear)."""
    if "Traceback" in done.stderr or "Traceback" in done.stdout:
        return 1
    if done.returncode == 0:
        return 0
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    return int(len(errors) != 1)


@pytest.fixture(scope="session")
def demo_images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic calcium movie (60 frames, 4 cells, 64 px)."""
    from planexec.tools.calcium_demo import write_demo

    folder = tmp_path_factory.mktemp("demo") / "movie"
    write_demo(folder, frames=60, cells=4, size=64, seed=1)
    return folder
