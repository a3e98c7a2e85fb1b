"""A file-backed input (a whole `.npy` mapped read-only) reaches the worker as its path, never a copy."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from planexec.sandbox import Sandbox
from planexec.sandbox.session import file_backed
from tests.sandbox.conftest import needs


def _movie(tmp_path: Path) -> tuple[Path, np.ndarray]:
    data = np.random.default_rng(0).integers(0, 255, (40, 64, 64)).astype(np.uint8)
    path = tmp_path / "movie.npy"
    np.save(path, data)
    return path, data


def test_only_a_whole_read_only_mapping_counts_as_file_backed(tmp_path: Path) -> None:
    path, data = _movie(tmp_path)
    mapped = np.load(path, mmap_mode="r")
    assert file_backed(mapped) == os.path.realpath(path)
    assert file_backed(mapped[5:]) is None and file_backed(mapped.T) is None
    assert file_backed(np.load(path, mmap_mode="c")) is None and file_backed(data) is None


@needs("landlock")
def test_worker_maps_the_movie_read_only_where_it_lies(full: Sandbox, tmp_path: Path) -> None:
    path, data = _movie(tmp_path)
    with full.session({"images": np.load(path, mmap_mode="r"), "small": np.arange(3)}) as session:
        result = session.run("results = {'total': int(images.sum(dtype=np.int64)),"
                             " 'mapped': bool(isinstance(images, np.memmap)), 'writable': bool(images.flags.writeable)}")
        assert result.ok, result.error
        assert result.results == {"total": int(data.sum(dtype=np.int64)), "mapped": True, "writable": False}
        scratch = Path(session._worker.scratch)  # noqa: SLF001 - the copy that must not exist
        copies = [p.name for p in scratch.iterdir() if p.suffix == ".npy" and p.stat().st_size >= data.nbytes]
        assert copies == []
        write = session.run("images[0, 0, 0] = 1")
        assert not write.ok and "read-only" in (write.error or "")
    assert np.array_equal(np.load(path), data)
