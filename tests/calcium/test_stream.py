"""Chunked registration, projections and traces equal the in-memory computation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.tools.calcium_movie import open_movie
from planexec.tools.calcium_stream import (
    extract_traces,
    neuropil_pixels,
    phase_offsets,
    register_and_project,
    roi_pixels,
    shift_frames,
)


def _scene(t: int = 60, size: int = 48, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A textured field with three bright disks, jittered by known whole-pixel shifts."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:size, :size]
    base = 0.2 + 0.1 * np.sin(yy / 3.0) * np.cos(xx / 4.0)
    labels = np.zeros((size, size), np.int32)
    for i, (cy, cx) in enumerate([(12, 14), (30, 33), (20, 38)], start=1):
        disk = (yy - cy) ** 2 + (xx - cx) ** 2 <= 9
        labels[disk] = i
        base = base + 0.4 * disk
    shifts = rng.integers(-3, 4, (t, 2))
    shifts[:10] = 0
    movie = np.stack([np.roll(base * (1 + 0.05 * rng.standard_normal()), tuple(-s), axis=(0, 1)) for s in shifts])
    return (movie * 200).astype(np.uint8), labels, shifts


def test_phase_correlation_recovers_known_shifts() -> None:
    movie, _, shifts = _scene()
    frames = movie.astype(np.float32) / 255
    found = phase_offsets(frames, frames[:10].mean(axis=0))
    np.testing.assert_array_equal(found, shifts)
    np.testing.assert_allclose(shift_frames(frames, found)[20], frames[0] * frames[20].sum() / frames[0].sum(), atol=0.02)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 70))
def test_streamed_pass_equals_in_memory(chunk: int) -> None:
    import tempfile

    movie, labels, shifts = _scene()
    unit = movie.astype(np.float32) / 255
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "m.npy", movie)
        lazy = open_movie(Path(tmp) / "m.npy", axes="TYX")
        assert lazy is not None
        p1 = register_and_project(lazy, chunk=chunk)
        cells, neuropil = roi_pixels(labels), neuropil_pixels(labels)
        F, Fneu = extract_traces(lazy, cells, neuropil, p1.offsets, chunk=chunk)
    np.testing.assert_array_equal(p1.offsets, shifts)
    registered = shift_frames(unit, shifts)
    np.testing.assert_allclose(p1.mean_image, registered.mean(axis=0), atol=1e-6)
    np.testing.assert_array_equal(p1.max_image, registered.max(axis=0))
    flat = registered.reshape(len(unit), -1)
    for i, idx in enumerate(cells):
        np.testing.assert_allclose(F[i], flat[:, idx].mean(axis=1), atol=1e-6)
        np.testing.assert_allclose(Fneu[i], flat[:, neuropil[i]].mean(axis=1), atol=1e-6)


def test_neuropil_rings_avoid_every_cell_and_reach_their_size() -> None:
    _, labels, _ = _scene()
    rings = neuropil_pixels(labels, min_pixels=200)
    cells = set(np.flatnonzero(labels.ravel() > 0))
    for ring in rings:
        assert ring.size >= 200 and not cells & set(ring.tolist())
