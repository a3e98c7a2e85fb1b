"""The batch's parts that need no Ray: recordings, memory declared from the movie, the missing-extra error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from planexec.batch import require_ray
from planexec.errors import UsageError
from planexec.recordings import BASE_MEMORY, MOVIE_FACTOR, discover, movie_bytes, task_memory


def test_memory_is_declared_from_the_movie(demo_sessions: Path, tmp_path: Path) -> None:
    assert movie_bytes(demo_sessions / "s1") == 60 * 64 * 64 * 4
    assert task_memory(demo_sessions / "s1") == BASE_MEMORY + MOVIE_FACTOR * 60 * 64 * 64 * 4
    big = tmp_path / "big.npy"
    np.lib.format.open_memmap(big, mode="w+", dtype=np.uint16, shape=(2000, 256, 256)).flush()
    assert movie_bytes(big) == 2000 * 256 * 256 * 4  # decoded as float32, whatever the file's dtype


def test_manifest_rows_keep_their_columns(demo_sessions: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_text("images,animal,name\n" + "".join(f"{demo_sessions / f's{i}'},m{i},rec\n" for i in (1, 2)))
    recs = discover(None, manifest)
    assert [r.name for r in recs] == ["rec", "rec-2"] and recs[1].extra["animal"] == "m2"
    with pytest.raises(UsageError, match="no recordings"):
        discover(str(tmp_path / "nothing*"))


def test_without_ray_the_error_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(UsageError, match=r"pip install 'planexec\[batch\]'"):
        require_ray()


def test_cli_subprocess_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", "from planexec.cli import main; main()", "batch", "Count the cells", "--images-glob", str(tmp_path / "none*")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no recordings" in proc.stderr
