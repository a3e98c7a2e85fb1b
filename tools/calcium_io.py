"""Load a calcium-imaging movie as float32 T×H×W in [0, 1], whatever form it arrives in.

Accepted: a folder of PNG frames (natural order, RGB made gray, 8- or 16-bit), a multi-page
TIFF or a folder of TIFFs, a `.npy` stack, or an HDF5 file (`dataset` names the array when it
holds several). Integer data is divided by its type's maximum, so intensities keep their
ratios (ΔF/F is unchanged). Corrupted frames are skipped and named in `StackMeta.skipped`;
everything else the user must fix raises InputError. Frame rate and pixel size come from the
file's tags or the caller (`calcium_meta`); `calcium_movie` streams files too large to load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from planexec.errors import InputError
from planexec.tools.calcium_meta import ASSUMED_FS, ASSUMED_FS_NOTE, Acquisition, from_tiff
from planexec.tools.calcium_movie import HDF5_SUFFIXES, open_movie

PNG_SUFFIXES = (".png",)
TIFF_SUFFIXES = (".tif", ".tiff")
NPY_SUFFIXES = (".npy",)
_GRAY_WEIGHTS = np.array([0.299, 0.587, 0.114])


@dataclass
class StackMeta:
    """What was loaded: shape, the original pixel type, the files used and the frames skipped."""

    frames: int
    height: int
    width: int
    dtype: str
    source_files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One "file: reason" line per unreadable frame that was left out."""
    path: str = ""
    acquisition: Acquisition = field(default_factory=Acquisition)
    """Frame rate (Hz) and pixel size (µm), with where each came from; None when nobody said."""
    axes_note: str = ""
    """How the time axis was chosen, when the file did not say (empty otherwise)."""
    dataset: str = ""
    intensity: str = ""
    """What the analysed values are: scaled to [0, 1], or the file's raw values (a streamed movie)."""
    deadline: str = ""
    """The run's deadline when the movie's size set it (empty when the user's or the default held)."""

    @property
    def fs(self) -> float | None:
        return self.acquisition.fs

    @property
    def pixel_size(self) -> float | None:
        return self.acquisition.pixel_size

    def describe(self) -> dict[str, object]:
        """What a report records about the input: path, shape, dtype, fs, pixel size and their sources."""
        acq = self.acquisition
        rate = {"fs": acq.fs, "fs_source": acq.fs_source} if acq.fs is not None else {
            "fs": None, "fs_source": ASSUMED_FS_NOTE, "fs_assumed_by_analyses": ASSUMED_FS}
        return {"path": self.path, "dataset": self.dataset or None, "shape": [self.frames, self.height, self.width],
                "dtype": self.dtype, **rate, **({"intensity": self.intensity} if self.intensity else {}),
                "pixel_size_um": acq.pixel_size, "pixel_size_source": acq.pixel_size_source or "not recorded",
                "axes_note": self.axes_note or None, "skipped_frames": len(self.skipped),
                **({"deadline": self.deadline} if self.deadline else {})}


MIN_FRAMES = 10
"""Fewest frames an analysis accepts: a baseline, a noise level and an event need some time."""


def natural_key(name: str) -> list[object]:
    """Sort key putting frame2 before frame10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.lower())]


def _to_unit(array: np.ndarray, where: str) -> np.ndarray:
    """Float32 in [0, 1]: integers divided by their type's maximum; floats rescaled only if needed."""
    if array.dtype == np.bool_:
        return array.astype(np.float32)
    if np.issubdtype(array.dtype, np.integer):
        info = np.iinfo(array.dtype)
        if info.min < 0:
            array = array.astype(np.float32) - info.min
            return (array / float(info.max - info.min)).astype(np.float32, copy=False)
        return (array / np.float32(info.max)).astype(np.float32, copy=False)
    if not np.issubdtype(array.dtype, np.floating):
        raise InputError(f"{where}: pixel type {array.dtype} is not numeric; pass image data")
    out = array.astype(np.float32, copy=False)
    bad = ~np.isfinite(out)
    if bad.any():
        raise InputError(
            f"{where}: {int(bad.sum())} pixels are NaN or infinite; "
            "clean the stack (e.g. np.nan_to_num) and pass it again"
        )
    lo, hi = float(out.min()), float(out.max())
    if lo >= 0.0 and hi <= 1.0:
        return out
    if lo >= 0.0:
        return out / np.float32(hi)
    return (out - np.float32(lo)) / np.float32(max(hi - lo, np.finfo(np.float32).tiny))


def _gray(array: np.ndarray) -> np.ndarray:
    """Collapse the last (colour) axis: drop alpha, weight RGB by luminance; keep the pixel type."""
    if array.shape[-1] in (2, 4):  # LA / RGBA
        array = array[..., :-1]
    if array.shape[-1] == 1:
        return array[..., 0]
    gray = array @ _GRAY_WEIGHTS
    return np.rint(gray).astype(array.dtype) if np.issubdtype(array.dtype, np.integer) else gray


def _read_png(path: Path) -> np.ndarray:
    """One PNG frame as a 2-D array in its own integer type (uint8 or uint16)."""
    from PIL import Image

    with Image.open(path) as img:
        img.load()
        if img.mode == "P":
            img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        if img.mode in ("I;16", "I;16B", "I;16L", "I"):
            array = np.asarray(img)
            return array.astype(np.uint16) if array.dtype != np.uint16 else array
        if img.mode == "1":
            img = img.convert("L")
        array = np.asarray(img)
    return _gray(array) if array.ndim == 3 else array


def _read_tiff(path: Path) -> np.ndarray:
    """Every page of a TIFF as a 3-D array (pages × H × W), colour made gray."""
    import tifffile

    with tifffile.TiffFile(path) as tif:
        series = tif.series[0]
        array = series.asarray()
        axes = series.axes
    if "S" in axes:  # colour samples, interleaved (...YXS) or planar (...SYX)
        array = _gray(np.moveaxis(array, axes.index("S"), -1))
    if array.ndim < 2:
        raise InputError(f"{path.name}: not an image (shape {array.shape})")
    return array.reshape(-1, *array.shape[-2:])


def _frames_in(folder: Path) -> tuple[list[Path], str]:
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    pngs = [p for p in files if p.suffix.lower() in PNG_SUFFIXES]
    tiffs = [p for p in files if p.suffix.lower() in TIFF_SUFFIXES]
    if pngs and tiffs:
        raise InputError(
            f"{folder} holds both PNG and TIFF frames; keep one kind of frame per folder"
        )
    chosen, kind = (pngs, "png") if pngs else (tiffs, "tiff")
    if not chosen:
        raise InputError(
            f"{folder} has no PNG or TIFF frames; pass a folder of frames, a multi-page TIFF "
            "or a .npy stack (create a sample with `planexec demo-data DIR`)"
        )
    return sorted(chosen, key=lambda p: natural_key(p.name)), kind


def _load_folder(folder: Path) -> tuple[np.ndarray, StackMeta]:
    paths, kind = _frames_in(folder)
    reader = _read_png if kind == "png" else _read_tiff
    skipped: list[str] = []
    stack: np.ndarray | None = None
    used: list[str] = []
    dtypes: set[str] = set()
    first: tuple[str, tuple[int, ...]] | None = None
    pieces: list[np.ndarray] = []
    t = 0
    for path in paths:
        try:
            frame = reader(path)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - any decoder failure means a corrupted frame
            skipped.append(f"{path.name}: {type(exc).__name__}: {exc}")
            continue
        shape = frame.shape[-2:]
        if first is None:
            first = (path.name, shape)
            if kind == "png":
                stack = np.empty((len(paths), *shape), dtype=np.float32)
        elif shape != first[1]:
            raise InputError(
                f"{path.name} is {shape[0]}x{shape[1]} but {first[0]} is "
                f"{first[1][0]}x{first[1][1]}; all frames must have the same size"
            )
        dtypes.add(str(frame.dtype))
        used.append(str(path))
        if stack is not None:
            stack[t] = _to_unit(frame, path.name)
            t += 1
        else:
            pieces.append(_to_unit(frame.reshape(-1, *shape), path.name))
    if first is None:
        raise InputError(
            f"{folder}: none of the {len(paths)} frames could be read "
            f"(first problem: {skipped[0]}); check the files"
        )
    images = stack[:t] if stack is not None else np.concatenate(pieces, axis=0)
    meta = StackMeta(
        frames=images.shape[0],
        height=images.shape[1],
        width=images.shape[2],
        dtype="/".join(sorted(dtypes)),
        source_files=used,
        skipped=skipped,
    )
    return images, meta


def _load_file(path: Path, dataset: str | None, axes: str | None) -> tuple[np.ndarray, StackMeta]:
    suffix = path.suffix.lower()
    try:
        movie = open_movie(path, dataset=dataset, axes=axes) if _streamable(path) else None
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - report any decoder failure as unreadable input
        raise InputError(f"{path}: cannot be read as an image stack ({exc}); check the file") from None
    if movie is not None:
        raw = movie.read(0, movie.frames)
        images = _to_unit(raw, path.name)
        meta = StackMeta(frames=movie.frames, height=movie.height, width=movie.width, dtype=str(raw.dtype),
                         source_files=[str(path)], path=str(path), acquisition=movie.acquisition,
                         axes_note=movie.axes_note, dataset=movie.dataset)
        return images, meta
    try:
        if suffix in NPY_SUFFIXES:
            with path.open("rb") as fh:
                if fh.read(6) != b"\x93NUMPY":  # else numpy takes it for a pickle and suggests allow_pickle
                    raise InputError(f"{path}: cannot be read as an image stack: not a NumPy .npy array (no "
                                     ".npy header: damaged, truncated or another format); write it with numpy.save")
            from planexec.sandbox.parsing import load_npy
            raw = load_npy(path, allow_pickle=False)
        elif suffix in TIFF_SUFFIXES:
            raw = _read_tiff(path)
        elif suffix in PNG_SUFFIXES:
            raw = _read_png(path)
        else:
            raise InputError(
                f"{path.name}: not an image stack (.png frames folder, .tif/.tiff, .npy or .h5 expected)"
            )
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - report any decoder failure as unreadable input
        raise InputError(f"{path}: cannot be read as an image stack ({exc}); check the file") from None
    if suffix in NPY_SUFFIXES and raw.ndim == 4 and raw.shape[-1] in (1, 2, 3, 4):
        raw = _gray(raw)
    if raw.ndim == 2:
        raise InputError(
            f"{path.name} is a single 2-D image; pass the folder holding all frames, "
            "a multi-page TIFF or a T×H×W .npy stack"
        )
    if raw.ndim != 3 or min(raw.shape) == 0:
        raise InputError(f"{path.name}: expected a T×H×W stack, got shape {raw.shape}")
    images = _to_unit(raw, path.name)
    meta = StackMeta(
        frames=images.shape[0],
        height=images.shape[1],
        width=images.shape[2],
        dtype=str(raw.dtype),
        source_files=[str(path)],
        path=str(path),
        acquisition=_tiff_acquisition(path) if suffix in TIFF_SUFFIXES else Acquisition(),
    )
    return images, meta


def _streamable(path: Path) -> bool:
    """True for files `open_movie` reads lazily: 3-D `.npy`, HDF5, and TIFFs it can page through."""
    suffix = path.suffix.lower()
    if suffix in HDF5_SUFFIXES or suffix in TIFF_SUFFIXES:
        return True
    if suffix in NPY_SUFFIXES:
        with path.open("rb") as fh:
            if fh.read(6) != b"\x93NUMPY":  # else numpy takes it for a pickle and suggests allow_pickle
                raise InputError(f"{path}: cannot be read as an image stack: not a NumPy .npy array (no "
                                 ".npy header: damaged, truncated or another format); write it with numpy.save")
            fh.seek(0)
            from planexec.sandbox.parsing import read_npy_header
            shape = read_npy_header(fh)[0]
        return len(shape) == 3 and min(shape) > 0
    return False


def _tiff_acquisition(path: Path) -> Acquisition:
    import tifffile

    with tifffile.TiffFile(path) as tif:
        return from_tiff(tif)


def load_stack(path: str | Path, *, dataset: str | None = None, axes: str | None = None,
               fs: float | None = None, pixel_size: float | None = None) -> tuple[np.ndarray, StackMeta]:
    """The movie at `path` as C-contiguous float32 T×H×W in [0, 1], with what was loaded.

    `fs` (Hz) and `pixel_size` (µm) override the file's tags; `dataset` picks an HDF5 array and
    `axes` ("TYX", "YXT") says which axis is time when the file cannot.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise InputError(f"{path}: no such file or folder; check the --images path")
    images, meta = _load_folder(path) if path.is_dir() else _load_file(path, dataset, axes)
    if path.is_dir():
        meta.path = str(path)
        first = meta.source_files[0] if meta.source_files else ""
        if first.lower().endswith(TIFF_SUFFIXES):
            meta.acquisition = _tiff_acquisition(Path(first))
    meta.acquisition = meta.acquisition.with_overrides(fs, pixel_size)
    return np.ascontiguousarray(images, dtype=np.float32), meta


def check_analysable(images: np.ndarray, meta: StackMeta, min_frames: int = MIN_FRAMES) -> None:
    """One clear InputError for a movie no analysis can use: too few frames, or nothing changing."""
    name = Path(meta.path).name or "the movie"
    if images.shape[0] < min_frames:
        raise InputError(
            f"{name} has {images.shape[0]} frame(s); calcium analysis needs at least {min_frames} "
            f"(a baseline and a noise level); pass the whole recording"
        )
    lo, hi = float(images.min()), float(images.max())
    if hi - lo <= 0.0:
        raise InputError(
            f"{name}: every pixel of every frame has the value {lo:g} (a blank or saturated movie); "
            "check the acquisition or export and pass the recorded frames"
        )
    if float(np.ptp(images.reshape(images.shape[0], -1).mean(axis=1))) == 0.0 and \
            not np.any(images != images[:1]):
        raise InputError(
            f"{name}: all {images.shape[0]} frames are identical, so nothing changes over time; "
            "pass the recorded movie, not a repeated still image"
        )
