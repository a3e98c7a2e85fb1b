"""Synthetic calcium-imaging movies with known truth, for demos, tests and benchmarks.

Cells are Gaussian blobs with a resting fluorescence; each fires spikes (a Poisson process with
a short refractory gap, so every spike is a distinct transient), and each spike adds a
GCaMP6f-like transient (instant rise, exponential decay, ~0.7 s at 10 Hz) scaled by its ΔF/F
amplitude. Background, slow bleaching and Gaussian pixel noise complete the frame.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from planexec.errors import InputError

FORMATS = ("png", "tiff")


@dataclass(frozen=True)
class DemoParams:
    """Everything that shapes a synthetic movie; stored in ground_truth.json."""

    frames: int = 200
    cells: int = 15
    size: int = 128
    seed: int = 0
    noise: float = 0.02
    """Standard deviation of the Gaussian pixel noise, in [0, 1] intensity units."""
    fps: float = 10.0
    decay_s: float = 0.7
    """Transient decay time constant (GCaMP6f-like)."""
    rate_hz: float = 0.3
    """Mean spike rate per cell."""
    refractory_frames: int = 5
    """Minimum gap between two spikes of one cell, so each spike is a separable transient."""
    amplitude_range: tuple[float, float] = (0.4, 1.2)
    """ΔF/F of one spike's transient, drawn uniformly."""
    cell_sigma_range: tuple[float, float] = (2.0, 3.0)
    """Gaussian footprint width in pixels."""
    brightness_range: tuple[float, float] = (0.15, 0.3)
    """Resting fluorescence at a cell's centre above background."""
    background: float = 0.1
    bleach: float = 0.05
    """Fraction of fluorescence lost by the last frame (exponential bleaching)."""


@dataclass
class GroundTruth:
    """What the movie contains: centroids [row, col], spike frames (0-based) and amplitudes."""

    cell_centroids: list[list[float]]
    cell_sigmas: list[float]
    spike_frames: list[list[int]]
    spike_amplitudes: list[list[float]]
    params: DemoParams = field(default_factory=DemoParams)

    @property
    def n_cells(self) -> int:
        return len(self.cell_centroids)

    @property
    def n_spikes(self) -> int:
        return sum(len(s) for s in self.spike_frames)

    def to_json(self) -> dict[str, Any]:
        return {
            "n_cells": self.n_cells,
            "n_spikes": self.n_spikes,
            "cell_centroids": self.cell_centroids,
            "cell_sigmas": self.cell_sigmas,
            "spike_frames": self.spike_frames,
            "spike_amplitudes": self.spike_amplitudes,
            "parameters": asdict(self.params),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GroundTruth:
        params = dict(data.get("parameters") or {})
        for key in ("amplitude_range", "cell_sigma_range", "brightness_range"):
            if key in params:
                params[key] = tuple(params[key])
        return cls(
            cell_centroids=[list(map(float, c)) for c in data["cell_centroids"]],
            cell_sigmas=[float(s) for s in data.get("cell_sigmas", [])],
            spike_frames=[[int(f) for f in s] for s in data["spike_frames"]],
            spike_amplitudes=[[float(a) for a in s] for s in data.get("spike_amplitudes", [])],
            params=DemoParams(**params),
        )


def load_ground_truth(path: str | Path) -> GroundTruth:
    """Read a ground_truth.json (or the one inside a demo folder)."""
    path = Path(path)
    if path.is_dir():
        path = path / "ground_truth.json"
    if not path.is_file():
        raise InputError(f"{path}: no ground truth here; create one with `planexec demo-data DIR`")
    return GroundTruth.from_json(json.loads(path.read_text(encoding="utf-8")))


def _place_cells(rng: np.random.Generator, p: DemoParams) -> tuple[np.ndarray, np.ndarray]:
    """Random centroids at least two footprints apart and clear of the border."""
    sigmas = rng.uniform(*p.cell_sigma_range, size=p.cells)
    margin = 3.0 * p.cell_sigma_range[1]
    min_sep = 4.0 * p.cell_sigma_range[1]
    if p.size - 2 * margin <= 0:
        raise InputError(f"size {p.size} is too small for cells; use --size 32 or more")
    centroids: list[np.ndarray] = []
    for _ in range(200 * max(p.cells, 1)):
        if len(centroids) == p.cells:
            break
        cand = rng.uniform(margin, p.size - 1 - margin, size=2)
        if all(np.hypot(*(cand - c)) >= min_sep for c in centroids):
            centroids.append(cand)
    if len(centroids) < p.cells:
        raise InputError(
            f"cannot place {p.cells} non-overlapping cells in {p.size}x{p.size} pixels; "
            f"use fewer --cells or a larger --size"
        )
    return np.array(centroids, dtype=np.float64).reshape(-1, 2), sigmas


def _spike_train(rng: np.random.Generator, p: DemoParams) -> np.ndarray:
    """Spike frames of one cell: Poisson arrivals with a refractory gap."""
    rate = p.rate_hz / p.fps
    if rate <= 0:
        return np.zeros(0, dtype=np.int64)
    frames: list[int] = []
    t = int(rng.geometric(rate)) - 1
    while t < p.frames:
        frames.append(t)
        t += p.refractory_frames + int(rng.geometric(rate))
    return np.array(frames, dtype=np.int64)


def generate_demo(
    frames: int = 200,
    cells: int = 15,
    size: int = 128,
    seed: int = 0,
    noise: float = 0.02,
    **overrides: Any,
) -> tuple[np.ndarray, GroundTruth]:
    """A float32 T×H×W movie in [0, 1] and its ground truth; same arguments, same movie."""
    p = DemoParams(frames=frames, cells=cells, size=size, seed=seed, noise=noise, **overrides)
    if frames < 1 or cells < 0 or size < 1 or noise < 0:
        raise InputError("frames and size must be positive, cells and noise not negative")
    rng = np.random.default_rng(seed)
    centroids, sigmas = _place_cells(rng, p)
    brightness = rng.uniform(*p.brightness_range, size=cells)

    tau = p.decay_s * p.fps
    kernel = np.exp(-np.arange(frames) / tau)
    activity = np.zeros((cells, frames))
    spikes: list[list[int]] = []
    amps: list[list[float]] = []
    for i in range(cells):
        train = _spike_train(rng, p)
        a = rng.uniform(*p.amplitude_range, size=train.size)
        impulses = np.zeros(frames)
        impulses[train] = a
        activity[i] = np.convolve(impulses, kernel)[:frames]
        spikes.append(train.tolist())
        amps.append([round(float(x), 4) for x in a])

    rows, cols = np.mgrid[0:size, 0:size]
    footprints = np.zeros((cells, size * size))
    for i, ((r, c), s, b) in enumerate(zip(centroids, sigmas, brightness, strict=True)):
        footprints[i] = (b * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / (2 * s**2))).ravel()
    bleach = np.exp(np.log(1 - p.bleach) * np.arange(frames) / max(frames - 1, 1))

    movie = np.empty((frames, size, size), dtype=np.float32)
    chunk = 256
    for start in range(0, frames, chunk):
        stop = min(start + chunk, frames)
        cell_signal = (1.0 + activity[:, start:stop]).T @ footprints
        block = (p.background + cell_signal) * bleach[start:stop, None]
        block += rng.normal(0.0, noise, size=block.shape) if noise > 0 else 0.0
        movie[start:stop] = np.clip(block, 0.0, 1.0).reshape(-1, size, size)

    truth = GroundTruth(
        cell_centroids=[[round(float(r), 3), round(float(c), 3)] for r, c in centroids],
        cell_sigmas=[round(float(s), 3) for s in sigmas],
        spike_frames=spikes,
        spike_amplitudes=amps,
        params=p,
    )
    return movie, truth


def _is_previous_demo(path: Path) -> bool:
    return (path / "ground_truth.json").is_file()


def _demo_files(path: Path) -> list[Path]:
    """Files an earlier write_demo may have left in `path` (and nothing else)."""
    names = [p for p in path.glob("frame_*.png") if p.stem[6:].isdigit()]
    names += [p for p in (path / "movie.tif", path / "ground_truth.json") if p.is_file()]
    return names


def write_demo(
    directory: str | Path,
    frames: int = 200,
    cells: int = 15,
    size: int = 128,
    seed: int = 0,
    noise: float = 0.02,
    format: str = "png",
    bits: int = 16,
    force: bool = False,
) -> tuple[list[Path], GroundTruth]:
    """Write a demo movie (PNG frames or one multi-page TIFF) and ground_truth.json into `directory`.

    An earlier demo's files are replaced; other files stay. A non-empty folder that holds no
    earlier demo needs `force`, so a user's folder is not filled with frames by accident.
    """
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if bits not in (8, 16):
        raise InputError(f"bits must be 8 or 16, not {bits}")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file; pass a folder path")
    if out.is_dir() and any(out.iterdir()) and not (force or _is_previous_demo(out)):
        raise InputError(f"{out} is not empty; pass --force to write into it or choose a new folder")
    movie, truth = generate_demo(frames, cells, size, seed, noise)
    out.mkdir(parents=True, exist_ok=True)
    for old in _demo_files(out):
        old.unlink()

    scale = 255 if bits == 8 else 65535
    ints = np.rint(movie * scale).astype(np.uint8 if bits == 8 else np.uint16)
    if format == "tiff":
        import tifffile

        path = out / "movie.tif"
        tifffile.imwrite(path, ints, photometric="minisblack")
        written = [path]
    else:
        from PIL import Image

        width = max(4, len(str(frames - 1)))
        written = []
        for t, frame in enumerate(ints):
            path = out / f"frame_{t:0{width}d}.png"
            Image.fromarray(frame).save(path, optimize=False)
            written.append(path)
    data = truth.to_json()
    data["files"] = [p.name for p in written]
    data["bits"] = bits
    (out / "ground_truth.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    return written, truth
