"""A movie mapped read-only into the worker: reads in blocks leave no pages of it resident."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from planexec.sandbox import Sandbox
from planexec.sandbox.mapped import ReleasingMap, map_readonly
from planexec.sandbox.wire import npy_header

FRAMES, SIZE = 128, 256  # 8 MB of uint8: 256 pages per 4 frames


def _resident(pid: int | str, path: Path) -> int:
    """Bytes of `path` mapped and resident in process `pid` (its /proc smaps)."""
    target, total, inside = os.path.realpath(path), 0, False
    with open(f"/proc/{pid}/smaps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            fields = line.split(maxsplit=5)
            if "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
                inside = len(fields) == 6 and fields[5].strip() == target
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1]) * 1024
    return total


def _movie(tmp_path: Path) -> tuple[Path, np.ndarray]:
    data = np.random.default_rng(0).integers(0, 255, (FRAMES, SIZE, SIZE)).astype(np.uint8)
    path = tmp_path / "movie.npy"
    np.save(path, data)
    return path, data


def _open(path: Path) -> ReleasingMap:
    with open(path, "rb") as fh:  # the map holds its own descriptor
        dtype, shape, fortran, offset = npy_header(fh)
        return map_readonly(fh, dtype, shape, offset, fortran)


def test_block_reads_leave_nothing_resident_where_a_memmap_keeps_the_file(tmp_path: Path) -> None:
    path, data = _movie(tmp_path)
    plain, releasing = np.load(path, mmap_mode="r"), _open(path)
    total = 0
    for start in range(0, FRAMES, 8):
        total += int(np.asarray(plain[start:start + 8], dtype=np.int64).sum())
        block = releasing[start:start + 8]
        assert type(block) is np.ndarray and np.array_equal(block, data[start:start + 8])
    assert total == int(data.sum(dtype=np.int64))
    assert _resident("self", path) >= 0.9 * data.nbytes  # the plain memmap holds every page it read
    del plain
    assert _resident("self", path) < data.nbytes / 8  # the releasing map: at most one block


def test_reads_are_copies_and_arrays_computed_from_the_map_stay_views(tmp_path: Path) -> None:
    path, data = _movie(tmp_path)
    movie = _open(path)
    frame = movie[3]
    frame[0, 0] = 7  # a copy: the map is read-only and unchanged
    assert movie[3, 0, 0] == data[3, 0, 0] and movie[[1, 5]].shape == (2, SIZE, SIZE)
    assert np.array_equal(movie[..., 2, 2], data[:, 2, 2]) and movie.shape == data.shape
    scaled = movie.astype(np.float32)
    scaled[:2] = -1.0  # a slice of a computed array is a view, as numpy's own
    assert float(scaled[:2].max()) == -1.0 and type(scaled[2:4]) is np.ndarray


def test_the_worker_reads_a_streamed_movie_without_holding_it(full: Sandbox, tmp_path: Path) -> None:
    path, data = _movie(tmp_path)
    code = ("total = 0\nfor start in range(0, len(images), 8):\n"
            "    total += int(np.asarray(images[start:start + 8], dtype=np.int64).sum())\n"
            "results = {'total': total, 'mapped': bool(isinstance(images, np.memmap))}")
    with full.session({"images": np.load(path, mmap_mode="r")}) as session:
        result = session.run(code)
        assert result.ok, result.error
        assert result.results == {"total": int(data.sum(dtype=np.int64)), "mapped": True}
        pid = session.worker_pid
        assert pid is not None and _resident(pid, path) < data.nbytes / 8
        whole = session.run("results = {'top': int(images.max())}")  # a reduction over the whole map
        assert whole.ok and whole.results == {"top": int(data.max())}
        assert _resident(pid, path) >= 0.9 * data.nbytes  # ... reads through it, as documented
        again = session.run("first = images[0]")
        assert again.ok and _resident(pid, path) < data.nbytes / 8  # the next indexed read lets go
