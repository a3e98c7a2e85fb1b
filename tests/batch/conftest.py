"""Demo recordings shared by the batch tests (made once with the `planexec demo-data` generator)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planexec.tools.calcium_demo import write_demo

SESSIONS = 4


@pytest.fixture(scope="session")
def demo_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`sessions/s1..s4/`: small PNG movies (60 frames, 64x64, 5 cells), one seed each."""
    root = tmp_path_factory.mktemp("batch") / "sessions"
    for i in range(1, SESSIONS + 1):
        write_demo(root / f"s{i}", frames=60, cells=5, size=64, seed=i)
    return root
