"""Load a calcium-imaging movie as float32 T×H×W in [0, 1], whatever form it arrives in.

Accepted: a folder of PNG frames (natural order, RGB made gray, 8- or 16-bit), a multi-page
TIFF or a folder of TIFFs, or a `.npy` stack. Integer data is divided by its type's maximum,
so intensities keep their ratios (ΔF/F is unchanged). Corrupted frames are skipped and named
in `StackMeta.skipped`; everything else the user must fix raises InputError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from planexec.errors import InputError

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


def _load_file(path: Path) -> tuple[np.ndarray, StackMeta]:
    suffix = path.suffix.lower()
    try:
        if suffix in NPY_SUFFIXES:
            with path.open("rb") as fh:
                if fh.read(6) != b"\x93NUMPY":  # else numpy takes it for a pickle and suggests allow_pickle
                    raise InputError(f"{path}: cannot be read as an image stack: not a NumPy .npy array (no "
                                     ".npy header: damaged, truncated or another format); write it with numpy.save")
            raw = np.load(path, allow_pickle=False)
        elif suffix in TIFF_SUFFIXES:
            raw = _read_tiff(path)
        elif suffix in PNG_SUFFIXES:
            raw = _read_png(path)
        else:
            raise InputError(
                f"{path.name}: not an image stack (.png frames folder, .tif/.tiff or .npy expected)"
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
    )
    return images, meta


def load_stack(path: str | Path) -> tuple[np.ndarray, StackMeta]:
    """The movie at `path` as C-contiguous float32 T×H×W in [0, 1], with what was loaded."""
    path = Path(path).expanduser()
    if not path.exists():
        raise InputError(f"{path}: no such file or folder; check the --images path")
    images, meta = _load_folder(path) if path.is_dir() else _load_file(path)
    return np.ascontiguousarray(images, dtype=np.float32), meta
