"""A movie on disk read a chunk of frames at a time: `.npy`, TIFF and HDF5 never load whole.

`open_movie(path)` looks at the file's header only. `Movie.chunks()` yields float32 frames in
[0, 1] (the same scaling as `load_stack`), so a 2.6 GB uint8 recording is processed in a few
tens of MB. Mapped `.npy` pages are released after each chunk (`MADV_DONTNEED`), so the
process's resident memory stays bounded by the chunk, not the file.

Which axis is time: a TIFF says so (its pages); for `.npy` and HDF5 the caller may name the
order (`axes="TYX"`, `"YXT"`); otherwise time is the longest axis, and the choice is stated
in `Movie.axes_note` whenever the file did not say it.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from planexec.errors import InputError
from planexec.tools.calcium_meta import Acquisition, from_hdf5_attrs, from_tiff

HDF5_SUFFIXES = (".h5", ".hdf5", ".hdf")
DEFAULT_CHUNK = 256


@dataclass
class Movie:
    """A T×H×W movie whose frames are read on demand; `read` gives raw values, `chunks` unit floats."""

    path: str
    frames: int
    height: int
    width: int
    dtype: np.dtype
    acquisition: Acquisition = field(default_factory=Acquisition)
    axes_note: str = ""
    dataset: str = ""
    _read: Callable[[int, int], np.ndarray] | None = field(default=None, repr=False)
    _release: Callable[[], None] = field(default=lambda: None, repr=False)
    _range: tuple[float, float] | None = field(default=None, repr=False)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.frames, self.height, self.width)

    @property
    def nbytes(self) -> int:
        return self.frames * self.height * self.width * self.dtype.itemsize

    def read(self, start: int, stop: int) -> np.ndarray:
        """Frames [start, stop) in the file's own type, as a C-contiguous copy."""
        assert self._read is not None
        out = np.ascontiguousarray(self._read(max(start, 0), min(stop, self.frames)))
        self._release()
        return out

    def unit(self, raw: np.ndarray) -> np.ndarray:
        """Raw frames as float32 in [0, 1], scaled exactly as `load_stack` scales the whole movie."""
        dt = self.dtype
        if dt == np.bool_:
            return raw.astype(np.float32)
        if np.issubdtype(dt, np.integer):
            info = np.iinfo(dt)
            if info.min < 0:
                return ((raw.astype(np.float32) - info.min) / float(info.max - info.min)).astype(np.float32)
            return (raw / np.float32(info.max)).astype(np.float32, copy=False)
        lo, hi = self.value_range()
        out = raw.astype(np.float32, copy=False)
        if lo >= 0.0 and hi <= 1.0:
            return out
        if lo >= 0.0:
            return out / np.float32(hi)
        return (out - np.float32(lo)) / np.float32(max(hi - lo, np.finfo(np.float32).tiny))

    def value_range(self, chunk: int = DEFAULT_CHUNK) -> tuple[float, float]:
        """(min, max) of a float movie, found in one streamed pass and remembered."""
        if self._range is None:
            lo, hi = np.inf, -np.inf
            for start in range(0, self.frames, chunk):
                raw = self.read(start, start + chunk).astype(np.float32, copy=False)
                if not np.isfinite(raw).all():
                    raise InputError(f"{Path(self.path).name}: some pixels are NaN or infinite; "
                                     "clean the stack (e.g. np.nan_to_num) and pass it again")
                lo, hi = min(lo, float(raw.min())), max(hi, float(raw.max()))
            self._range = (lo, hi)
        return self._range

    def chunks(self, size: int = DEFAULT_CHUNK) -> Iterator[tuple[int, np.ndarray]]:
        """(first frame, float32 frames in [0, 1]) for consecutive blocks of at most `size` frames."""
        for start in range(0, self.frames, size):
            yield start, self.unit(self.read(start, start + size))


def time_axis(shape: tuple[int, ...], axes: str | None, where: str) -> tuple[int, int, int, str]:
    """The (T, Y, X) axis indices of a 3-D array and a note saying how T was chosen ('' if stated)."""
    if axes:
        order = axes.upper()
        if sorted(order) != ["T", "X", "Y"]:
            raise InputError(f"axes={axes!r} must order the letters T, Y and X (e.g. TYX or YXT)")
        return order.index("T"), order.index("Y"), order.index("X"), ""
    longest = max(shape)
    candidates = [i for i, n in enumerate(shape) if n == longest]
    t = candidates[0]
    rest = [i for i in range(3) if i != t]
    names = "TYX" if t == 0 else ("YTX" if t == 1 else "YXT")
    if len(candidates) > 1:
        note = (f"{where}: shape {tuple(shape)} does not say which axis is time; axis {t} was taken "
                f"as time ({names}); pass axes=... (e.g. --param axes=YXT) if that is wrong")
    else:
        note = (f"{where}: axis {t} ({shape[t]} long, the longest) was taken as time ({names}); "
                "pass axes=... (e.g. --param axes=TYX) if that is wrong")
    return t, rest[0], rest[1], note


def _view(array: Any, t: int, y: int, x: int) -> Callable[[int, int], np.ndarray]:
    """A reader of frames [a, b) from a 3-D array-like (memmap or h5py dataset) with time on axis t."""

    def read(a: int, b: int) -> np.ndarray:
        index: list[Any] = [slice(None)] * 3
        index[t] = slice(a, b)
        block = np.asarray(array[tuple(index)])
        return np.transpose(block, (t, y, x))

    return read


def _open_npy(path: Path, axes: str | None) -> Movie:
    with path.open("rb") as fh:
        from planexec.sandbox.parsing import read_npy_header
        shape, fortran, dtype = read_npy_header(fh)
        offset = fh.tell()
    if dtype.hasobject:
        raise InputError(f"{path.name} holds Python objects, not pixels; save a numeric array")
    shape = tuple(shape)
    if len(shape) != 3 or min(shape) == 0:
        raise InputError(f"{path.name}: expected a T×H×W stack, got shape {shape}")
    fh = path.open("rb")
    mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    fh.close()
    array = np.ndarray(shape, dtype=dtype, buffer=mm, offset=offset, order="F" if fortran else "C")
    t, y, x, note = time_axis(shape, axes, path.name)

    def release() -> None:
        if hasattr(mm, "madvise"):
            mm.madvise(mmap.MADV_DONTNEED)

    return Movie(str(path), shape[t], shape[y], shape[x], dtype, Acquisition(), note,
                 _read=_view(array, t, y, x), _release=release)


def hdf5_datasets(path: Path) -> list[str]:
    """Names of the 3-D numeric datasets in an HDF5 file."""
    import h5py

    found: list[str] = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.append("/" + name) if isinstance(obj, h5py.Dataset)
                     and obj.ndim == 3 and obj.dtype.kind in "biuf" else None)
    return found


def _open_hdf5(path: Path, dataset: str | None, axes: str | None) -> Movie:
    import h5py

    names = hdf5_datasets(path)
    if dataset is None:
        if len(names) != 1:
            listed = ", ".join(names) or "none"
            raise InputError(f"{path.name} holds {len(names)} 3-D datasets ({listed}); "
                             "name one with --param dataset=/PATH")
        dataset = names[0]
    f = h5py.File(path, "r")
    if dataset not in f or not isinstance(f[dataset], h5py.Dataset):
        f.close()
        raise InputError(f"{path.name} has no dataset {dataset!r}; its 3-D datasets are "
                         f"{', '.join(names) or 'none'}")
    data = f[dataset]
    if data.ndim != 3 or data.dtype.kind not in "biuf":
        shape, kind = data.shape, data.dtype
        f.close()
        raise InputError(f"{path.name}:{dataset} is {kind} of shape {shape}; a T×H×W numeric dataset is needed")
    t, y, x, note = time_axis(data.shape, axes or data.attrs.get("axes"), f"{path.name}:{dataset}")
    acq = from_hdf5_attrs(data.attrs)
    shape = data.shape
    return Movie(str(path), shape[t], shape[y], shape[x], np.dtype(data.dtype), acq, note, dataset,
                 _read=_view(data, t, y, x))


def _open_tiff(path: Path) -> Movie | None:
    """A page-streamed TIFF, or None when its layout (colour samples, several series) needs a full read."""
    import tifffile

    with tifffile.TiffFile(path) as tif:
        series = tif.series[0]
        axes, shape = series.axes, series.shape
        acq = from_tiff(tif)
        pages = len(series.pages) if hasattr(series, "pages") else 0
    if "S" in axes or len(shape) < 2:
        return None
    height, width = shape[-2], shape[-1]
    frames = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    if pages != frames:
        return None

    def read(a: int, b: int) -> np.ndarray:
        if b <= a:
            return np.empty((0, height, width), dtype=dtype)
        with tifffile.TiffFile(path) as tif:
            block = tif.asarray(key=range(a, b), series=0)
        return block.reshape(-1, height, width)

    with tifffile.TiffFile(path) as tif:
        dtype = np.dtype(tif.series[0].dtype)
    return Movie(str(path), frames, height, width, dtype, acq, "", _read=read)


def open_movie(path: str | Path, *, dataset: str | None = None, axes: str | None = None) -> Movie | None:
    """The movie in a `.npy`, TIFF or HDF5 file, read lazily; None for inputs read whole (PNG folders)."""
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    if path.is_dir():
        return None
    if suffix == ".npy":
        return _open_npy(path, axes)
    if suffix in HDF5_SUFFIXES:
        return _open_hdf5(path, dataset, axes)
    if suffix in (".tif", ".tiff"):
        return _open_tiff(path)
    return None
