"""segment_cells on planted movies: a silent soma half as bright, 7.5 px from an active cell, gets its
own ROI (the segmentation before issue 13 lost it), and none is invented beside the active cell alone."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from planexec.tools.calcium_pipeline import run_in


def _movie(dim_soma: bool, seed: int) -> np.ndarray:
    """300 frames of 64x64: a bright cell at (30, 24) that fires, and (optionally) a silent soma half as bright 7.5 px away."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:64, 0:64]
    bright = 1.0 / (1.0 + np.exp((np.hypot(rows - 30, cols - 24) - 3.5) / 0.6))
    dim = 1.0 / (1.0 + np.exp((np.hypot(rows - 30, cols - 31.5) - 3.5) / 0.6))
    activity = np.zeros(300)
    for t in (20, 95, 170, 245):
        activity[t:] += np.exp(-np.arange(300 - t) / 10.0)
    frames = 0.05 + (0.2 * bright)[None] * (1.0 + activity)[:, None, None]
    if dim_soma:
        frames = frames + (0.1 * dim)[None]
    return (frames + rng.normal(0, 0.08, frames.shape)).astype(np.float32)


def _segment(movie: np.ndarray) -> list[dict]:
    variables = {"images_registered": movie, "valid_region": (0, 64, 0, 64)}
    return run_in(variables, ["segment_cells"], {"fs": 15.0, "tau": 0.7, "diameter": 8.0})["stat"]


def test_a_dim_soma_on_a_bright_neighbours_flank_gets_its_own_roi() -> None:
    stat = _segment(_movie(dim_soma=True, seed=0))
    near_dim = [s for s in stat if np.hypot(s["med"][0] - 30, s["med"][1] - 31.5) < 1.5]
    near_bright = [s for s in stat if np.hypot(s["med"][0] - 30, s["med"][1] - 24) < 1.5]
    assert len(near_bright) == 1 and len(near_dim) == 1, [s["med"] for s in stat]
    assert near_dim[0].get("silent") is True  # found in the mean image, not from activity


def test_without_the_dim_soma_nothing_is_added_beside_the_bright_cell() -> None:
    stat = _segment(_movie(dim_soma=False, seed=0))
    assert [round(float(np.hypot(s["med"][0] - 30, s["med"][1] - 24))) for s in stat] == [0]


def _overlapping_movie(second: float, gap: float, seed: int) -> np.ndarray:
    """300 frames of 64x64: a bright cell (radius 4.5) at (30, 24) that fires, and a silent soma of
    radius 3.5 and relative brightness `second` `gap` px away, so close their disks overlap."""
    rng = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:64, 0:64]
    bright = 1.0 / (1.0 + np.exp((np.hypot(rows - 30, cols - 24) - 4.5) / 0.6))
    other = 1.0 / (1.0 + np.exp((np.hypot(rows - 30, cols - 24 - gap) - 3.5) / 0.6))
    activity = np.zeros(300)
    for t in (20, 95, 170, 245):
        activity[t:] += np.exp(-np.arange(300 - t) / 10.0)
    frames = 0.05 + (0.2 * bright)[None] * (1.0 + activity)[:, None, None] + (0.2 * second * other)[None]
    return (frames + rng.normal(0, 0.08, frames.shape)).astype(np.float32)


def test_a_soma_overlapping_a_bright_neighbour_is_found_once_the_neighbour_is_fitted_out() -> None:
    # 6.5 px apart with radii 4.5 and 3.5: no peak of its own in the mean image (the segmentation
    # before the soma fit found only the bright cell); with the bright cell's disk fitted and taken
    # out it is, and its fitted brightness is a soma's, not a saddle's
    movie = _overlapping_movie(second=0.7, gap=6.5, seed=1)
    soma = -ndimage.gaussian_laplace(movie.mean(axis=0).astype(np.float64), 8.0 / (2 * np.sqrt(2)))
    window = soma[26:35, 27:36]
    assert window.max() < soma[30, 24] and np.unravel_index(np.argmax(window), window.shape)[1] == 0
    stat = _segment(movie)
    near = [s for s in stat if np.hypot(s["med"][0] - 30, s["med"][1] - 30.5) < 1.5]
    assert len(near) == 1 and near[0].get("silent") is True, [s["med"] for s in stat]
    assert 0.4 <= near[0]["soma_brightness"] < 1.0  # classify_cells counts a squeezed soma from 0.4


def test_two_bright_neighbours_leave_no_roi_between_them() -> None:
    movie = _overlapping_movie(second=1.0, gap=9.0, seed=2)
    stat = _segment(movie)
    assert not [s for s in stat if abs(s["med"][1] - 28.5) < 2.5], [s["med"] for s in stat]
