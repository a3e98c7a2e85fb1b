"""A harder synthetic calcium movie than `calcium_demo`: touching cells, neuropil, motion, bleaching.

What makes it hard, each a field of `SynthParams`:

- cells of several sizes (soma radius drawn per cell), as close as `min_sep` px (touching at 5),
  some dim (`dim_fraction` of cells at a fraction of the brightness);
- neuropil: a spatially smooth background whose activity follows a bursty population signal
  (many out-of-focus neurons firing together), added to cell pixels too, at `neuropil` times
  the mean resting cell brightness -- the source of false events shared by many cells;
- motion: a rigid random walk plus per-frame jitter up to `drift` px, and optionally a smooth
  non-rigid warp (`nonrigid` px) varying over the field;
- photobleaching, Gaussian pixel noise, any frame rate and decay time.

Spike frames are where transients start (instant rise, exponential decay with `tau` s).
Truth centroids are in the unmoved frame of reference (frame 0 has no motion).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from scipy import ndimage

from planexec.errors import InputError


@dataclass(frozen=True)
class SynthParams:
    """Everything that shapes a movie; two equal SynthParams give the same movie."""

    frames: int = 300
    size: int = 96
    cells: int = 20
    seed: int = 0
    fs: float = 15.0
    tau: float = 0.7
    """Transient decay time constant, s."""
    rate_hz: float = 0.25
    radius_range: tuple[float, float] = (3.0, 5.0)
    """Soma radius in px (diameter 6-10 px)."""
    min_sep: float = 8.0
    """Closest centre distance between two cells, px (>= 5 makes touching cells)."""
    touching: float = 0.0
    """Fraction of cells placed right next to another one (centre distance min_sep..min_sep+1.5);
    the others keep at least `spread` px from every cell."""
    spread: float = 0.0
    """Centre distance kept by cells not placed as touching (0: min_sep)."""
    brightness_range: tuple[float, float] = (0.15, 0.3)
    dim_fraction: float = 0.0
    """Fraction of cells at `dim_level` times their brightness."""
    dim_level: float = 0.5
    amplitude_range: tuple[float, float] = (0.5, 1.5)
    """ΔF/F of one spike."""
    neuropil: float = 0.0
    """Neuropil resting level relative to the mean cell brightness (0-0.3)."""
    neuropil_activity: float = 1.0
    """ΔF/F of the neuropil at a population burst."""
    background: float = 0.05
    noise: float = 0.05
    drift: float = 0.0
    """Largest rigid displacement, px (random walk, clipped, plus jitter)."""
    jitter: float = 0.5
    """Per-frame rigid jitter, px (only when drift > 0)."""
    nonrigid: float = 0.0
    """Amplitude of the smooth non-rigid warp, px."""
    bleach: float = 0.2
    """Fraction of fluorescence lost by the last frame."""

    def describe(self) -> str:
        return (f"{self.frames}x{self.size}x{self.size} {self.cells} cells sep>={self.min_sep:g} "
                f"npil {self.neuropil:g} noise {self.noise:g} drift {self.drift:g}/{self.nonrigid:g} "
                f"fs {self.fs:g} seed {self.seed}")


@dataclass
class SynthTruth:
    """Ground truth: centroids [row, col], radii, spike frames, plus the motion applied per frame."""

    cell_centroids: list[list[float]]
    cell_radii: list[float]
    spike_frames: list[list[int]]
    shifts: np.ndarray
    """T x 2 rigid (dy, dx) applied to frame t (content at p moves to p + shift)."""
    neuropil_trace: np.ndarray
    params: SynthParams = field(default_factory=SynthParams)

    @property
    def n_spikes(self) -> int:
        return sum(len(s) for s in self.spike_frames)

    def to_json(self) -> dict[str, Any]:
        return {"cell_centroids": self.cell_centroids, "cell_radii": self.cell_radii,
                "spike_frames": self.spike_frames, "shifts": self.shifts.tolist(), "parameters": asdict(self.params)}


def _place(rng: np.random.Generator, p: SynthParams, radii: np.ndarray) -> np.ndarray:
    margin = p.radius_range[1] + 2 + p.drift
    pts: list[np.ndarray] = []
    wide = max(p.spread, p.min_sep)
    n_touch = int(round(p.touching * p.cells))
    for _ in range(400 * max(p.cells, 1)):
        if len(pts) == p.cells:
            break
        near = len(pts) < n_touch and len(pts) % 2 == 1
        if near:  # next to the previous cell, touching it
            angle = rng.uniform(0, 2 * np.pi)
            cand = pts[-1] + rng.uniform(p.min_sep, p.min_sep + 1.5) * np.array([np.sin(angle), np.cos(angle)])
            if np.any(cand < margin) or np.any(cand > p.size - 1 - margin):
                continue
            ok = all(np.hypot(*(cand - q)) >= (p.min_sep if k == len(pts) - 1 else wide) for k, q in enumerate(pts))
        else:
            cand = rng.uniform(margin, p.size - 1 - margin, size=2)
            ok = all(np.hypot(*(cand - q)) >= wide for q in pts)
        if ok:
            pts.append(cand)
    if len(pts) < p.cells:
        raise InputError(f"cannot place {p.cells} cells {p.min_sep} px apart in {p.size}x{p.size}; "
                         "use fewer cells or a larger size")
    return np.array(pts).reshape(-1, 2)


def _spikes(rng: np.random.Generator, p: SynthParams, rate_hz: float) -> np.ndarray:
    """Poisson spike frames with a refractory gap of ~tau/2 (each spike a visible transient)."""
    gap = max(2, int(round(0.5 * p.tau * p.fs)))
    rate = rate_hz / p.fs
    out: list[int] = []
    t = int(rng.geometric(min(rate, 1.0))) - 1
    while t < p.frames:
        out.append(t)
        t += gap + int(rng.geometric(min(rate, 1.0)))
    return np.array(out, dtype=np.int64)


def _motion(rng: np.random.Generator, p: SynthParams) -> np.ndarray:
    if p.drift <= 0:
        return np.zeros((p.frames, 2))
    walk = np.cumsum(rng.normal(0, p.drift / np.sqrt(max(p.frames, 1)) * 2.0, size=(p.frames, 2)), axis=0)
    walk = ndimage.gaussian_filter1d(walk, 3.0, axis=0)
    walk -= walk[0]
    jitter = rng.normal(0, p.jitter, size=(p.frames, 2))
    jitter[0] = 0
    shifts = np.clip(walk + jitter, -p.drift, p.drift)
    # make sure the movie really visits the stated range
    peak = np.abs(shifts).max()
    if peak > 0:
        shifts *= min(p.drift / peak, 3.0) * 0.95
    shifts[0] = 0
    return shifts


def generate_synth(p: SynthParams | None = None, **overrides: Any) -> tuple[np.ndarray, SynthTruth]:
    """A float32 T x H x W movie and its truth."""
    p = replace(p or SynthParams(), **overrides)
    if p.frames < 2 or p.size < 16 or p.noise < 0 or p.fs <= 0 or p.tau <= 0:
        raise InputError("frames >= 2, size >= 16, noise >= 0, fs > 0 and tau > 0 are needed")
    rng = np.random.default_rng(p.seed)
    radii = rng.uniform(*p.radius_range, size=p.cells)
    centres = _place(rng, p, radii)
    bright = rng.uniform(*p.brightness_range, size=p.cells)
    dim = rng.random(p.cells) < p.dim_fraction
    bright[dim] *= p.dim_level

    kernel = np.exp(-np.arange(p.frames) / (p.tau * p.fs))
    spikes: list[list[int]] = []
    activity = np.zeros((p.cells, p.frames))
    for i in range(p.cells):
        train = _spikes(rng, p, p.rate_hz)
        imp = np.zeros(p.frames)
        imp[train] = rng.uniform(*p.amplitude_range, size=train.size)
        activity[i] = np.convolve(imp, kernel)[: p.frames]
        spikes.append(train.tolist())
    # neuropil: population bursts (out-of-focus neurons firing together) plus slow fluctuation
    bursts = np.zeros(p.frames)
    for t in _spikes(rng, p, 0.15):
        bursts[t] = rng.uniform(0.5, 1.0)
    npil_trace = p.neuropil_activity * np.convolve(bursts, np.exp(-np.arange(p.frames) / (1.5 * p.tau * p.fs)))[: p.frames]
    npil_trace += 0.1 * ndimage.gaussian_filter1d(rng.normal(0, 1, p.frames), 2 * p.fs)

    pad = int(np.ceil(p.drift + p.nonrigid)) + 2
    n = p.size + 2 * pad
    rr, cc = np.mgrid[0:n, 0:n].astype(np.float64)
    feet = np.zeros((p.cells, n * n))
    for i, ((r, c), rad, b) in enumerate(zip(centres + pad, radii, bright, strict=True)):
        d = np.hypot(rr - r, cc - c)
        soma = 1.0 / (1.0 + np.exp(np.minimum((d - rad) / 0.6, 60.0)))  # soft-edged disk
        feet[i] = (b * soma).ravel()
    npil_map = ndimage.gaussian_filter(rng.normal(0, 1, (n, n)), 8.0)
    npil_map = 1.0 + 0.3 * npil_map / (npil_map.std() + 1e-12)
    npil_map = np.clip(npil_map, 0.3, None).ravel() * p.neuropil * float(np.mean(p.brightness_range))

    shifts = _motion(rng, p)
    if p.nonrigid > 0:
        phase = rng.uniform(0, 2 * np.pi, size=2)
        warp_t = ndimage.gaussian_filter1d(rng.normal(0, 1, (p.frames, 2)), p.fs / 2, axis=0)
        warp_t /= np.abs(warp_t).max() + 1e-12
    bleach = np.exp(np.log(1 - p.bleach) * np.arange(p.frames) / (p.frames - 1))
    movie = np.empty((p.frames, p.size, p.size), dtype=np.float32)
    for t in range(p.frames):
        frame = p.background + (1.0 + activity[:, t]) @ feet + npil_map * (1.0 + npil_trace[t])
        frame = (frame * bleach[t]).reshape(n, n)
        dy = shifts[t, 0] + (p.nonrigid * warp_t[t, 0] * np.sin(2 * np.pi * cc / n + phase[0]) if p.nonrigid > 0 else 0)
        dx = shifts[t, 1] + (p.nonrigid * warp_t[t, 1] * np.sin(2 * np.pi * rr / n + phase[1]) if p.nonrigid > 0 else 0)
        if np.any(dy) or np.any(dx):
            # content at p moves to p + shift: sample the unmoved frame at p - shift
            frame = ndimage.map_coordinates(frame, [rr - dy, cc - dx], order=1, mode="nearest")
        crop = frame[pad:pad + p.size, pad:pad + p.size]
        movie[t] = crop + rng.normal(0, p.noise, crop.shape) if p.noise > 0 else crop
    truth = SynthTruth([[round(float(r), 3), round(float(c), 3)] for r, c in centres],
                       [round(float(x), 3) for x in radii], spikes, shifts, npil_trace, p)
    return movie, truth


KINDS: dict[str, SynthParams] = {
    "dim_close": SynthParams(cells=24, min_sep=6.0, neuropil=0.12, noise=0.09, dim_fraction=0.3),
    "neuropil_0.3": SynthParams(cells=20, min_sep=8.0, neuropil=0.3, noise=0.05),
    "drift_rigid": SynthParams(cells=20, min_sep=8.0, neuropil=0.1, noise=0.06, drift=4.0, jitter=0.7),
    "drift_nonrigid": SynthParams(cells=20, min_sep=8.0, neuropil=0.1, noise=0.06, drift=3.0, nonrigid=2.0),
    "touching": SynthParams(cells=24, min_sep=5.0, touching=1.0, spread=12.0, radius_range=(3.0, 4.0),
                            neuropil=0.1, noise=0.05),
    "noise_0.15": SynthParams(cells=20, min_sep=8.0, neuropil=0.1, noise=0.15),
    "fast_30hz": SynthParams(frames=450, fs=30.0, tau=0.5, cells=20, neuropil=0.15, noise=0.08,
                             radius_range=(4.0, 6.0), min_sep=10.0),
}
"""The kinds of movie the issue names (small sizes; benchmarks scale them up)."""


def kind(name: str, seed: int, **overrides: Any) -> tuple[np.ndarray, SynthTruth]:
    """A movie of a named kind and seed."""
    if name not in KINDS:
        raise InputError(f"unknown movie kind {name!r}; use one of {', '.join(KINDS)}")
    return generate_synth(KINDS[name], seed=seed, **overrides)


__all__ = ["KINDS", "SynthParams", "SynthTruth", "generate_synth", "kind"]
