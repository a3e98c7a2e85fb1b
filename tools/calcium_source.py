"""The movie a run analyses: loaded whole when small, a read-only memory map of the file when large.

A run loads a movie as float32 in [0, 1] (`load_stack`) while that copy is small; above
`STREAM_BYTES` (or with the parameter `stream=true`) it hands the analysis a read-only
`np.memmap` of the file's own pixel values instead, which the sandbox maps without a copy
(`planexec.sandbox.session.file_backed`). A C-ordered T×H×W `.npy` is mapped as it is;
TIFF, HDF5 and other `.npy` layouts are first written once, a chunk at a time, as such a
`.npy` in a temporary folder removed when the run ends (disk, not memory: the movie's size).

A streamed `images` holds the file's raw values; registration (`register_motion`) reads
integer pixels as fractions of their type's maximum, as `load_stack` scales a loaded movie, so
F, the mean image and everything after them match a loaded run. Float pixels stay as they are
(`intensity` in the inputs says which).
"""

from __future__ import annotations

import mmap
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planexec.errors import InputError
from planexec.tools.calcium_io import (
    MIN_FRAMES,
    StackMeta,
    _streamable,
    check_analysable,
    load_stack,
)
from planexec.tools.calcium_movie import Movie, open_movie

STREAM_BYTES = 1 << 30
"""Size of the float32 copy above which a run streams the movie from its file instead."""

SCALED = "scaled to [0, 1] (divided by the pixel type's maximum)"
STREAMED = "scaled to [0, 1] as frames are read from disk (divided by the pixel type's maximum)"
RAW = "the file's float values as they are (streamed from disk, not rescaled)"


@dataclass
class RunMovie:
    """What the run's analysis reads as `images`, what was loaded, and the temporary copy to remove."""

    images: np.ndarray
    meta: StackMeta
    streamed: bool
    cache_dir: str | None = None

    def close(self) -> None:
        """Remove the temporary `.npy` written for a TIFF or HDF5 movie (nothing otherwise)."""
        self.images = np.zeros((0, 0, 0), np.float32)  # the map goes with the last reference; unlinking is safe
        if self.cache_dir:
            shutil.rmtree(self.cache_dir, ignore_errors=True)
            self.cache_dir = None


def _wants_stream(stream: Any, movie: Movie | None) -> bool:
    """True when asked (`stream=true`), or, unless asked not to, when the float32 copy would exceed STREAM_BYTES."""
    if movie is None:
        if stream is True:
            raise InputError("stream=true needs a single file (.npy, .tif or .h5); a folder of frames is read whole")
        return False
    if stream is not None:
        return bool(stream)
    return movie.frames * movie.height * movie.width * 4 > STREAM_BYTES


def open_for_run(path: str | Path, params: dict[str, Any]) -> RunMovie:
    """The movie at `path` for a run; `params` (resolved by planexec.params) may set fs, pixel_size,
    dataset, axes and stream (True, False or None)."""
    path = Path(path).expanduser()
    if not path.exists():
        raise InputError(f"{path}: no such file or folder; check the --images path")
    stream = params.get("stream")  # coerced to True, False or None by planexec.params (SPECS["stream"])
    if stream is not None and not isinstance(stream, bool):
        raise InputError(f"stream={stream!r} is not true or false; resolve the parameters first "
                         "(planexec.params.resolve) or pass --param stream=true (or false)")
    movie = None
    if path.is_file() and path.suffix.lower() in (".npy", ".h5", ".hdf5", ".hdf", ".tif", ".tiff"):
        if path.suffix.lower() == ".npy":
            _streamable(path)  # a file without a .npy header is named as such (numpy would suggest allow_pickle)
        try:
            movie = open_movie(path, dataset=params.get("dataset"), axes=params.get("axes"))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - report any decoder failure as unreadable input
            raise InputError(f"{path}: cannot be read as an image stack ({exc}); check the file") from None
    if not _wants_stream(stream, movie):
        images, meta = load_stack(path, dataset=params.get("dataset"), axes=params.get("axes"),
                                  fs=params.get("fs"), pixel_size=params.get("pixel_size"))
        check_analysable(images, meta)
        meta.intensity = SCALED
        return RunMovie(images, meta, streamed=False)
    assert movie is not None
    high = _check_streamed(movie)
    meta = StackMeta(frames=movie.frames, height=movie.height, width=movie.width, dtype=str(movie.dtype),
                     source_files=[str(path)], path=str(path), acquisition=movie.acquisition,
                     axes_note=movie.axes_note, dataset=movie.dataset)
    meta.acquisition = meta.acquisition.with_overrides(params.get("fs"), params.get("pixel_size"))
    meta.intensity = STREAMED if movie.dtype.kind in "biu" or high <= 1.0 else RAW
    direct = _direct_npy(path, movie)
    if direct is not None:
        return RunMovie(direct, meta, streamed=True)
    cache = tempfile.mkdtemp(prefix="planexec-movie-")
    try:
        return RunMovie(_write_npy(movie, Path(cache) / "movie.npy"), meta, streamed=True, cache_dir=cache)
    except BaseException:
        shutil.rmtree(cache, ignore_errors=True)
        raise


def _check_streamed(movie: Movie, chunk: int = 64) -> float:
    """`check_analysable` in one pass of `chunk` frames (enough frames, finite, non-negative, not
    constant); returns the largest pixel value."""
    name = Path(movie.path).name
    if movie.frames < MIN_FRAMES:
        raise InputError(f"{name} has {movie.frames} frame(s); calcium analysis needs at least {MIN_FRAMES} "
                         "(a baseline and a noise level); pass the whole recording")
    first = movie.read(0, 1)
    lo, hi, changes = float("inf"), float("-inf"), False
    for start in range(0, movie.frames, chunk):
        raw = movie.read(start, start + chunk)
        if raw.dtype.kind == "f" and not np.isfinite(raw).all():
            raise InputError(f"{name}: some pixels are NaN or infinite; clean the stack (e.g. np.nan_to_num) "
                             "and pass it again")
        lo, hi = min(lo, float(raw.min())), max(hi, float(raw.max()))
        changes = changes or bool(np.any(raw != first))
    if lo < 0:
        raise InputError(f"{name}: pixel values go down to {lo:g}; a streamed movie's values are used as they are, "
                         "so ΔF/F needs them non-negative; offset the movie or pass --param stream=false")
    if hi - lo <= 0.0:
        raise InputError(f"{name}: every pixel of every frame has the value {lo:g} (a blank or saturated movie); "
                         "check the acquisition or export and pass the recorded frames")
    if not changes:
        raise InputError(f"{name}: all {movie.frames} frames are identical, so nothing changes over time; "
                         "pass the recorded movie, not a repeated still image")
    return hi


def _direct_npy(path: Path, movie: Movie) -> np.ndarray | None:
    """The `.npy` itself mapped read-only, when it is C-ordered T×H×W in a numeric type."""
    if path.suffix.lower() != ".npy":
        return None
    from planexec.sandbox.parsing import load_npy
    mapped = load_npy(path, mmap_mode="r", allow_pickle=False)
    if mapped.shape != movie.shape or not mapped.flags.c_contiguous or mapped.dtype.kind not in "biuf":
        return None
    return mapped


def _write_npy(movie: Movie, target: Path, chunk: int = 64) -> np.ndarray:
    """The movie written as a C-ordered T×H×W `.npy` of its own pixel type, then mapped read-only."""
    out = np.lib.format.open_memmap(target, mode="w+", dtype=movie.dtype, shape=movie.shape)
    for start in range(0, movie.frames, chunk):
        out[start:start + chunk] = movie.read(start, start + chunk)
        out.flush()
        if out._mmap is not None:  # written pages go to disk, not into this process's memory
            out._mmap.madvise(mmap.MADV_DONTNEED)
    del out
    from planexec.sandbox.parsing import load_npy
    return load_npy(target, mmap_mode="r", allow_pickle=False)


__all__ = ["RAW", "SCALED", "STREAMED", "STREAM_BYTES", "RunMovie", "open_for_run"]
