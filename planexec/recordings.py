"""The recordings a batch runs: found from a glob or a CSV manifest, each with the memory its
run declares to Ray (read from the movie's headers, never by loading it)."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from planexec.errors import UsageError

BASE_MEMORY = 768 * 2**20
"""A warm worker's own footprint (Python, torch, the embedding model), declared on every task."""
MOVIE_FACTOR = 6
"""Copies of the float32 movie a calcium run holds at its peak (raw, registered, projections, traces)."""


@dataclass(frozen=True)
class Recording:
    """One movie to analyse: a name unique in the batch, its path, and the memory its run needs."""

    name: str
    images: str
    memory: int = BASE_MEMORY
    """Bytes declared to Ray for this task."""
    extra: dict[str, str] = field(default_factory=dict)
    """The manifest's other columns (animal, session, ...), copied into the row."""



def discover(images_glob: str | None = None, manifest: Path | None = None) -> list[Recording]:
    """Recordings from a glob (each match is one movie: a folder of frames, a TIFF, a .npy) and/or
    a CSV manifest with an `images` column (relative paths are relative to the manifest)."""
    found: list[tuple[str, dict[str, str]]] = []
    if images_glob:
        found += [(p, {}) for p in sorted(glob.glob(os.path.expanduser(images_glob)))]
    if manifest is not None:
        found += _read_manifest(Path(manifest))
    if not found:
        raise UsageError("no recordings: pass --images-glob 'sessions/*/' or a --manifest CSV with an images column")
    recordings, names = [], set()
    for path, extra in found:
        name = _unique(extra.get("name") or Path(path.rstrip("/")).name, names)
        recordings.append(Recording(name, str(Path(path).resolve()), task_memory(Path(path)), extra))
    return recordings


def _read_manifest(manifest: Path) -> list[tuple[str, dict[str, str]]]:
    import csv

    if not manifest.is_file():
        raise UsageError(f"manifest {manifest} not found; pass a CSV file with an images column")
    with manifest.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if rows and "images" not in rows[0]:
        raise UsageError(f"manifest {manifest} has no 'images' column (it has {', '.join(rows[0])})")
    out = []
    for row in rows:
        path = Path(row["images"]).expanduser()
        out.append((str(path if path.is_absolute() else manifest.parent / path), {k: v for k, v in row.items() if k != "images"}))
    return out


def _unique(name: str, taken: set[str]) -> str:
    base, n = name or "recording", 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def movie_bytes(path: Path) -> int:
    """The decoded float32 size of the movie at `path`, read from file headers only."""
    try:
        if path.is_dir():
            frames = sorted(p for p in path.iterdir() if p.suffix.lower() in (".png", ".tif", ".tiff", ".jpg"))
            if not frames:
                return 0
            from PIL import Image

            with Image.open(frames[0]) as im:
                w, h = im.size
            return len(frames) * w * h * 4
        if path.suffix == ".npy":
            from planexec.sandbox.parsing import load_npy

            arr = load_npy(path, mmap_mode="r")
            return int(arr.size) * 4
        if path.suffix.lower() in (".tif", ".tiff"):
            import tifffile

            with tifffile.TiffFile(path) as tif:
                page = tif.pages[0]
                return len(tif.pages) * int(page.shape[0]) * int(page.shape[1]) * 4  # type: ignore[union-attr]
        return path.stat().st_size * 4
    except (OSError, ValueError, IndexError):
        return 0  # an unreadable movie fails in its run, with a row that says why


def task_memory(path: Path) -> int:
    """Bytes a run on this movie may hold: the worker's own footprint plus a few movie copies."""
    return BASE_MEMORY + MOVIE_FACTOR * movie_bytes(path)
