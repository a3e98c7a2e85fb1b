"""Registration, projections and trace extraction a chunk of frames at a time.

For movies larger than memory: every function takes a `Movie` (or an in-memory array, treated
as one chunk source) and holds at most `chunk` frames as float32 at once. Results equal the
in-memory computation on the same frames (tests compare them); only the order of summation
differs, inside float64 accumulators.

Registration is rigid and to the whole pixel: phase correlation of each frame against a
reference (the mean of the first frames), the suite2p convention of (y, x) offsets that move
the frame onto the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from planexec.tools.calcium_movie import Movie

if TYPE_CHECKING:
    from scipy import sparse

CHUNK_BYTES = 64 << 20
"""Float32 bytes of one chunk of frames: 64 frames of 512×512, 4096 of 64×64."""


def auto_chunk(height: int, width: int, budget: int = CHUNK_BYTES) -> int:
    """Frames per chunk so one float32 chunk stays within `budget` bytes."""
    return max(1, budget // (4 * height * width))


def _chunks(movie: Movie | np.ndarray, size: int | None) -> Iterator[tuple[int, np.ndarray]]:
    h, w = (movie.height, movie.width) if isinstance(movie, Movie) else movie.shape[1:]
    size = size or auto_chunk(h, w)
    if isinstance(movie, Movie):
        yield from movie.chunks(size)
        return
    for start in range(0, movie.shape[0], size):
        yield start, np.asarray(movie[start:start + size], dtype=np.float32)


def _frames(movie: Movie | np.ndarray) -> int:
    return movie.frames if isinstance(movie, Movie) else int(movie.shape[0])


def reference_image(movie: Movie | np.ndarray, frames: int = 100) -> np.ndarray:
    """The mean of the first `frames` frames: the target every frame is registered to."""
    n = min(frames, _frames(movie))
    first = movie.unit(movie.read(0, n)) if isinstance(movie, Movie) else np.asarray(movie[:n], np.float32)
    return first.mean(axis=0, dtype=np.float64).astype(np.float32)


def phase_offsets(frames: np.ndarray, reference: np.ndarray, max_shift: int | None = None) -> np.ndarray:
    """(y, x) whole-pixel shifts moving each frame onto `reference`, by phase correlation (K×2 int)."""
    from scipy import fft  # keeps float32 as complex64: half numpy's memory per chunk

    ref = fft.rfft2(np.asarray(reference - reference.mean(), dtype=np.float32))
    spec = fft.rfft2(frames - frames.mean(axis=(1, 2), keepdims=True, dtype=np.float32))
    np.conjugate(spec, out=spec)
    spec *= ref[None]
    spec /= np.maximum(np.abs(spec), np.float32(1e-12))
    corr = fft.irfft2(spec, s=reference.shape)
    del spec
    h, w = reference.shape
    limit = max_shift if max_shift is not None else max(1, min(h, w) // 4)
    ys = np.r_[0:limit + 1, h - limit:h] if 2 * limit < h else np.arange(h)
    xs = np.r_[0:limit + 1, w - limit:w] if 2 * limit < w else np.arange(w)
    window = corr[:, ys][:, :, xs]
    flat = window.reshape(len(frames), -1).argmax(axis=1)
    iy, ix = np.unravel_index(flat, window.shape[1:])
    dy, dx = ys[iy], xs[ix]
    dy = np.where(dy > h // 2, dy - h, dy)
    dx = np.where(dx > w // 2, dx - w, dx)
    return np.stack([dy, dx], axis=1).astype(np.int32)


def shift_frames(frames: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each frame moved by its (y, x) offset, pixels leaving one edge entering the other (as np.roll)."""
    out = np.empty_like(frames)
    for i, (dy, dx) in enumerate(offsets):
        out[i] = np.roll(frames[i], (int(dy), int(dx)), axis=(0, 1))
    return out


@dataclass
class Pass1:
    """What one streamed pass over the movie yields: offsets and projections of the registered frames."""

    offsets: np.ndarray
    mean_image: np.ndarray
    max_image: np.ndarray


def register_and_project(movie: Movie | np.ndarray, *, register: bool = True, chunk: int | None = None,
                         reference: np.ndarray | None = None) -> Pass1:
    """Rigid offsets (T×2) and mean/max projections of the registered movie, in one pass."""
    total = _frames(movie)
    offsets = np.zeros((total, 2), dtype=np.int32)
    ref = reference if reference is not None or not register else reference_image(movie)
    acc: np.ndarray | None = None
    peak: np.ndarray | None = None
    for start, frames in _chunks(movie, chunk):
        if register:
            offsets[start:start + len(frames)] = phase_offsets(frames, ref)
            frames = shift_frames(frames, offsets[start:start + len(frames)])
        s = frames.sum(axis=0, dtype=np.float64)
        m = frames.max(axis=0)
        acc = s if acc is None else acc + s
        peak = m if peak is None else np.maximum(peak, m)
    assert acc is not None and peak is not None
    return Pass1(offsets, (acc / total).astype(np.float32), peak.astype(np.float32))


def roi_pixels(labels: np.ndarray) -> list[np.ndarray]:
    """Flat pixel indices of each label 1..N (empty arrays for labels with no pixel)."""
    flat = labels.ravel()
    n = int(flat.max()) if flat.size else 0
    order = np.argsort(flat, kind="stable")
    bounds = np.searchsorted(flat[order], np.arange(1, n + 2))
    return [np.sort(order[bounds[i]:bounds[i + 1]]) for i in range(n)]


def neuropil_pixels(labels: np.ndarray, inner: int = 2, min_pixels: int = 350, max_grow: int = 40) -> list[np.ndarray]:
    """Flat indices of each ROI's surround: a ring `inner` px away from every ROI, grown until it has
    `min_pixels` pixels (suite2p's default size) or `max_grow` px wide."""
    from scipy import ndimage  # here: a run's report imports this module, rarely this function

    h, w = labels.shape
    cells = labels > 0
    forbidden = ndimage.binary_dilation(cells, iterations=inner) if inner > 0 else cells
    out: list[np.ndarray] = []
    for roi in roi_pixels(labels):
        if roi.size == 0:
            out.append(roi)
            continue
        ys, xs = np.unravel_index(roi, (h, w))
        cy, cx = float(ys.mean()), float(xs.mean())
        yy, xx = np.ogrid[:h, :w]
        dist = np.hypot(yy - cy, xx - cx)
        base = np.hypot(ys - cy, xs - cx).max() + inner
        ring = np.zeros(0, dtype=np.int64)
        for grow in range(1, max_grow + 1):
            ring = np.flatnonzero(((dist <= base + grow) & ~forbidden).ravel())
            if ring.size >= min_pixels:
                break
        out.append(ring)
    return out


def weight_matrix(pixels: list[np.ndarray], size: int, weights: list[np.ndarray] | None = None) -> sparse.csr_matrix:
    """N×(H·W) matrix whose row i averages ROI i's pixels (with `weights` when given)."""
    from scipy import sparse

    rows, cols, vals = [], [], []
    for i, idx in enumerate(pixels):
        if idx.size == 0:
            continue
        wts = np.ones(idx.size) if weights is None else np.asarray(weights[i], dtype=np.float64)
        rows.append(np.full(idx.size, i))
        cols.append(idx)
        vals.append((wts / wts.sum()).astype(np.float32))
    if not rows:
        return sparse.csr_matrix((len(pixels), size))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(len(pixels), size))


def extract_traces(movie: Movie | np.ndarray, cells: list[np.ndarray], neuropil: list[np.ndarray] | None = None,
                   offsets: np.ndarray | None = None, chunk: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """F (N×T) the mean of each ROI's pixels per frame, and Fneu the same over the neuropil rings."""
    total = _frames(movie)
    first = None
    F: np.ndarray | None = None
    Fneu: np.ndarray | None = None
    for start, frames in _chunks(movie, chunk):
        if first is None:
            size = frames.shape[1] * frames.shape[2]
            cell_w = weight_matrix(cells, size)
            neu_w = weight_matrix(neuropil, size) if neuropil is not None else None
            F = np.zeros((len(cells), total), dtype=np.float32)
            Fneu = np.zeros((len(cells), total), dtype=np.float32) if neu_w is not None else None
            first = True
        if offsets is not None:
            frames = shift_frames(frames, offsets[start:start + len(frames)])
        flat = frames.reshape(len(frames), -1).T
        F[:, start:start + len(frames)] = cell_w @ flat
        if Fneu is not None and neu_w is not None:
            Fneu[:, start:start + len(frames)] = neu_w @ flat
    assert F is not None
    return F, Fneu
