"""extract_neuropil: the ring excludes every cell, Fneu follows planted neuropil, F - r*Fneu is exact."""

from __future__ import annotations

import numpy as np
import pytest

from planexec.tools.calcium_pipeline import run_in


def _disk_stat(cy: float, cx: float, radius: float, size: int) -> dict:
    rows, cols = np.mgrid[0:size, 0:size]
    ys, xs = np.nonzero(np.hypot(rows - cy, cols - cx) <= radius)
    lam = np.full(ys.size, 1.0 / ys.size, dtype=np.float32)
    return {"ypix": ys.astype(np.int32), "xpix": xs.astype(np.int32), "lam": lam, "med": [cy, cx],
            "npix": int(ys.size), "radius": radius, "overlap": np.zeros(ys.size, bool)}


@pytest.fixture(scope="module")
def planted() -> tuple[np.ndarray, list[dict], np.ndarray, np.ndarray]:
    """Two cells with known activity on a neuropil whose level follows a known trace."""
    rng = np.random.default_rng(0)
    size, frames = 64, 200
    cells = np.abs(rng.normal(0, 1, (2, frames))).cumsum(axis=1) % 3.0
    neuropil = 1.0 + 0.5 * np.sin(np.arange(frames) / 7.0)
    stat = [_disk_stat(20, 20, 4, size), _disk_stat(40, 44, 5, size)]
    movie = np.empty((frames, size, size), dtype=np.float32)
    for t in range(frames):
        frame = np.full((size, size), 0.1 * neuropil[t])
        for s, c in zip(stat, cells[:, t], strict=True):
            frame[s["ypix"], s["xpix"]] += 0.2 * (1 + c)
        movie[t] = frame
    return movie, stat, cells, neuropil


def test_ring_excludes_every_cell_pixel_and_is_large_enough(planted) -> None:
    movie, stat, _, _ = planted
    r = run_in({"images_registered": movie, "stat": stat}, ["extract_neuropil"])
    cell_pixels = {int(y) * 64 + int(x) for s in stat for y, x in zip(s["ypix"], s["xpix"], strict=True)}
    for ring in r["neuropil_masks"]:
        assert ring.size >= 150 and not (set(ring.tolist()) & cell_pixels)


def test_fneu_is_the_planted_neuropil_and_the_correction_is_exact(planted) -> None:
    movie, stat, cells, neuropil = planted
    r = run_in({"images_registered": movie, "stat": stat}, ["extract_neuropil"], {"neuropil_coefficient": 0.5})
    assert r["Fneu"] == pytest.approx(np.tile(0.1 * neuropil, (2, 1)), abs=1e-5)
    assert r["F"] == pytest.approx(0.1 * neuropil + 0.2 * (1 + cells), abs=1e-4)
    assert r["roi_traces"] == pytest.approx(r["F"] - 0.5 * r["Fneu"], abs=1e-6)
    default = run_in({"images_registered": movie, "stat": stat}, ["extract_neuropil"])
    assert default["neuropil_coefficient"] == 0.7


def test_overlapping_pixels_stay_out_of_f(planted) -> None:
    movie, stat, _, _ = planted
    a, b = _disk_stat(30, 30, 4, 64), _disk_stat(30, 35, 4, 64)
    shared = {(y, x) for y, x in zip(a["ypix"], a["xpix"], strict=True)} & {
        (y, x) for y, x in zip(b["ypix"], b["xpix"], strict=True)}
    for s in (a, b):
        s["overlap"] = np.array([(y, x) in shared for y, x in zip(s["ypix"], s["xpix"], strict=True)])
    bright = movie.copy()
    for y, x in shared:
        bright[:, y, x] = 100.0  # only the shared pixels light up
    r = run_in({"images_registered": bright, "stat": [a, b]}, ["extract_neuropil"])
    assert r["F"].max() < 10.0
