"""register_motion: planted shifts are recovered, still movies are left alone, bad frames flagged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from planexec.tools.calcium_pipeline import run_chain
from planexec.tools.calcium_synth import KINDS, SynthParams, generate_synth

REG = ["register_motion"]


@pytest.fixture(scope="module")
def still() -> np.ndarray:
    return generate_synth(SynthParams(frames=12, size=64, cells=10, noise=0.02, neuropil=0.1), seed=1)[0]


@settings(max_examples=6, deadline=None)
@given(dy=st.floats(-5, 5), dx=st.floats(-5, 5))
def test_a_known_subpixel_shift_is_recovered(still: np.ndarray, dy: float, dx: float) -> None:
    movie = still.copy()
    for t in range(7, 12):
        movie[t] = ndimage.shift(still[t], (dy, dx), order=3, mode="nearest")
    r = run_chain(movie, ids=REG)
    off = r["reg_offsets"]
    assert off[7:].mean(axis=0) - off[:7].mean(axis=0) == pytest.approx([dy, dx], abs=0.2)
    size = np.hypot(dy, dx)
    if size > 1.3 or size < 0.5:
        assert r["motion_detected"] == (size > 1.3)


def test_drifting_movie_offsets_track_the_planted_motion_and_the_result_is_still() -> None:
    movie, truth = generate_synth(SynthParams(frames=150, size=64, cells=10, drift=4.0, jitter=0.7,
                                              noise=0.04, neuropil=0.1), seed=7)
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    err = (r["reg_offsets"] - r["reg_offsets"].mean(0)) - (truth.shifts - truth.shifts.mean(0))
    assert np.sqrt((err ** 2).mean()) < 0.3 and r["motion_detected"] and r["registered"].startswith("rigid")
    # after registration a second pass finds (almost) nothing left to correct
    again = run_chain(r["images_registered"], {"fs": 15.0}, ids=REG)
    assert np.abs(again["reg_offsets"]).max() < 1.0


def test_a_still_movie_is_not_moved_unless_asked() -> None:
    movie, _ = generate_synth(SynthParams(frames=80, size=64, cells=8, noise=0.1), seed=3)
    r = run_chain(movie, ids=REG)
    assert not r["motion_detected"] and r["registered"] == "none" and r["images_registered"] is movie
    off = run_chain(movie, {"register": False}, ids=REG)
    assert off["registered"] == "none" and not off["reg_offsets"].any()
    forced = run_chain(movie, {"register": True, "nonrigid": False}, ids=REG)
    assert forced["registered"] == "rigid" and forced["images_registered"] is not movie


def test_non_rigid_motion_gets_the_piecewise_pass() -> None:
    movie, _ = generate_synth(SynthParams(frames=120, size=96, cells=16, drift=2.0, nonrigid=2.5,
                                          noise=0.04, neuropil=0.1), seed=4)
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    assert "piecewise-rigid" in r["registered"] and r["nonrigid_residual"] > r["nonrigid_px"]


def test_a_mild_non_rigid_warp_is_not_left_to_the_rigid_pass() -> None:
    # drift_nonrigid seed 56: its block disagreement over 5-frame averages (0.54) sat under the
    # old threshold, the movie stayed rigid, and second ROIs on three cells counted as cells
    movie, _ = generate_synth(KINDS["drift_nonrigid"], seed=56)
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    assert "piecewise-rigid" in r["registered"]


def test_pixel_noise_alone_does_not_look_non_rigid() -> None:
    movie, _ = generate_synth(KINDS["noise_0.15"], seed=5)
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    assert r["registered"] == "none" and r["nonrigid_residual"] < 0.8 * r["nonrigid_px"]


def test_a_corrupted_frame_is_flagged_bad() -> None:
    movie, _ = generate_synth(SynthParams(frames=60, size=64, cells=10, noise=0.03), seed=5)
    movie[17] = np.random.default_rng(0).random(movie.shape[1:]).astype(np.float32)
    r = run_chain(movie, ids=REG)
    assert r["bad_frames"][17] and r["n_bad_frames"] <= 2


def test_a_planted_non_rigid_warp_is_undone() -> None:
    base, _ = generate_synth(SynthParams(frames=2, size=96, cells=24, noise=0.0, neuropil=0.1, bleach=0.0), seed=2)
    rows, cols = np.mgrid[0:96, 0:96].astype(float)
    warp = 1.5 * np.sin(2 * np.pi * cols / 96)  # rows move up or down depending on the column
    moved = ndimage.map_coordinates(base[0], [rows - warp, cols], order=3, mode="nearest")
    rng = np.random.default_rng(0)
    movie = (np.stack([base[0]] * 20 + [moved] * 20) + rng.normal(0, 0.01, (40, 96, 96))).astype(np.float32)
    r = run_chain(movie, {"nonrigid": True}, ids=REG)

    def mismatch(m: np.ndarray) -> float:  # the two halves' averages, smoothed past the noise
        diff = ndimage.gaussian_filter(m[25:].mean(0) - m[:15].mean(0), 1.0)[10:-10, 10:-10]
        return float(np.sqrt((diff ** 2).mean()))

    # one piecewise pass left 0.26 of the mismatch (tapered blocks underestimate shifts); three leave 0.13
    assert mismatch(r["images_registered"]) < 0.18 * mismatch(movie)


def test_blocks_without_structure_do_not_make_a_still_movie_non_rigid() -> None:
    movie, _ = generate_synth(KINDS["touching"], seed=5)  # cell-free corners; was taken for non-rigid
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    assert r["registered"] == "none" and r["nonrigid_residual"] < r["nonrigid_px"]


def test_valid_region_is_what_every_frame_sees() -> None:
    movie, _ = generate_synth(SynthParams(frames=150, size=64, cells=10, drift=4.0, jitter=0.7,
                                          noise=0.04, neuropil=0.1), seed=7)
    r = run_chain(movie, {"fs": 15.0}, ids=REG)
    y0, y1, x0, x1 = r["valid_region"]
    assert (y0 + 64 - y1) + (x0 + 64 - x1) > 0  # drift uncovered some edge
    dy, dx = r["reg_offsets"].T
    unseen = (y0 + dy < -0.5) | (y1 - 1 + dy > 63.5) | (x0 + dx < -0.5) | (x1 - 1 + dx > 63.5)
    assert unseen.mean() <= 0.03
