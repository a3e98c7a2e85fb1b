"""classify_cells: the documented decision on hand-made ROIs, and the threshold parameter."""

from __future__ import annotations

import numpy as np
import pytest

from planexec.tools.calcium_pipeline import run_in


def _roi(cy: float, cx: float, radius: float, score: float) -> dict:
    rows, cols = np.mgrid[0:64, 0:64]
    ys, xs = np.nonzero(np.hypot(rows - cy, cols - cx) <= radius)
    return {"ypix": ys, "xpix": xs, "lam": np.full(ys.size, 1 / ys.size), "med": [cy, cx], "npix": int(ys.size),
            "radius": radius, "overlap": np.zeros(ys.size, bool), "score": score}


@pytest.fixture(scope="module")
def rois() -> dict:
    rng = np.random.default_rng(0)
    frames = 600
    transients = np.zeros(frames)
    for t in rng.choice(frames - 20, 12, replace=False):
        transients[t:t + 20] += np.exp(-np.arange(20) / 7.0)
    active = 1.0 + transients + rng.normal(0, 0.05, frames)
    flat = 1.0 + rng.normal(0, 0.05, frames)
    stat = [_roi(15, 15, 4, 400.0), _roi(45, 45, 4, 15.0), _roi(15, 45, 4, 400.0), _roi(15, 50.5, 4, 300.0)]
    traces = np.stack([active, flat, active, active * 1.02]).astype(np.float32)  # ROI 3 copies ROI 2
    spks = np.zeros((4, frames), np.float32)
    spks[[0, 2, 3], ::50] = 1.0  # inferred spikes 20 noise units high; none on the flat ROI
    return {"stat": stat, "roi_traces": traces, "spks": spks, "event_noise": [0.05] * 4, "diameter_px": 8.0,
            "mean_image": np.zeros((64, 64), np.float32)}


def test_an_active_compact_roi_is_a_cell_and_a_flat_one_is_not(rois: dict) -> None:
    r = run_in(rois, ["classify_cells"], {"fs": 15.0})
    iscell, features = r["iscell"], r["cell_features"]
    assert iscell.shape == (4, 2)
    assert iscell[0, 0] == 1 and iscell[0, 1] > 0.9
    assert iscell[1, 0] == 0 and iscell[1, 1] < 0.1
    assert features[0]["skewness"] > 1 and abs(features[1]["skewness"]) < 0.5


def test_a_second_roi_moving_with_its_neighbour_is_not_a_second_cell(rois: dict) -> None:
    r = run_in(rois, ["classify_cells"], {"fs": 15.0})
    assert r["cell_features"][3]["neighbour_corr"] > 0.99
    assert r["iscell"][3, 1] < r["iscell"][0, 1]
    assert r["iscell"][2, 0] == 0 or r["iscell"][3, 0] == 0


def test_the_threshold_parameter_moves_the_label_not_the_probability(rois: dict) -> None:
    strict = run_in(rois, ["classify_cells"], {"fs": 15.0, "cell_threshold": 0.9999999})
    loose = run_in(rois, ["classify_cells"], {"fs": 15.0, "cell_threshold": 0.0})
    assert np.array_equal(strict["iscell"][:, 1], loose["iscell"][:, 1])
    assert loose["iscell"][:, 0].sum() == 4 and strict["iscell"][:, 0].sum() < 4


def test_the_event_rate_uses_the_frame_rate_given_and_says_when_it_assumed_one(rois: dict) -> None:
    slow = run_in(rois, ["classify_cells"], {"fs": 15.0})["cell_features"]
    fast = run_in(rois, ["classify_cells"], {"fs": 30.0})["cell_features"]
    unknown = run_in(rois, ["classify_cells"], {})["cell_features"]
    # ROI 0: 12 spikes in 600 frames, i.e. 40 s at 15 Hz (18 per minute), 20 s at 30 Hz (36 per minute)
    assert slow[0]["events_per_min"] == pytest.approx(18.0, abs=1e-3)
    assert fast[0]["events_per_min"] == pytest.approx(36.0, abs=1e-3)
    assert unknown[0]["events_per_min"] == pytest.approx(12.0, abs=1e-3)  # 60 s at the assumed 10 Hz
    assert [f["rate_fs_assumed"] for f in (slow[0], fast[0], unknown[0])] == [False, False, True]
    assert [f["rate_fs"] for f in (slow[0], fast[0], unknown[0])] == [15.0, 30.0, 10.0]


def test_a_silent_cell_the_mean_image_shows_is_a_cell_unless_it_leans_on_a_neighbour() -> None:
    rng = np.random.default_rng(1)
    picture = rng.normal(0.1, 0.002, (64, 64)).astype(np.float32)
    rows, cols = np.mgrid[0:64, 0:64]
    for cy, cx in ((15, 15), (45, 45), (45, 50.5)):
        picture[np.hypot(rows - cy, cols - cx) <= 4] += 0.05  # three visible somata
    flat = (1.0 + rng.normal(0, 0.05, (3, 300))).astype(np.float32)  # none of them fires
    stat = [_roi(15, 15, 4, 20.0), _roi(45, 45, 4, 20.0), _roi(45, 50.5, 4, 20.0)]
    r = run_in({"stat": stat, "roi_traces": flat, "spks": np.zeros((3, 300), np.float32), "event_noise": [0.05] * 3,
               "diameter_px": 8.0, "mean_image": picture},
               ["classify_cells"], {"fs": 15.0})
    assert r["cell_features"][0]["contrast"] > 4
    assert r["iscell"][0, 0] == 1  # isolated and visible
    assert r["iscell"][1, 0] == 0 and r["iscell"][2, 0] == 0  # too close to another ROI to tell from a residual


def test_a_dim_cell_beside_a_bright_one_counts_when_it_has_its_own_soma_in_the_mean_image() -> None:
    rng = np.random.default_rng(2)
    picture = rng.normal(0.1, 0.002, (64, 64)).astype(np.float32)
    rows, cols = np.mgrid[0:64, 0:64]
    picture[np.hypot(rows - 30, cols - 24) <= 3] += 0.08  # bright soma
    picture[np.hypot(rows - 30, cols - 31) <= 3] += 0.03  # dim soma 7 px away
    flat = (1.0 + rng.normal(0, 0.05, (3, 300))).astype(np.float32)  # none of them fires
    stat = [_roi(30, 24, 3, 20.0), _roi(30, 31, 3, 20.0), _roi(33, 24, 3, 20.0)]  # ROI 2: 3 px off the bright soma
    r = run_in({"stat": stat, "roi_traces": flat, "spks": np.zeros((3, 300), np.float32), "event_noise": [0.05] * 3,
                "diameter_px": 6.0, "mean_image": picture}, ["classify_cells"], {"fs": 15.0})
    assert r["iscell"][0, 0] == 1 and r["iscell"][1, 0] == 1  # each owns its soma peak, though not isolated
    assert r["iscell"][2, 0] == 0  # a residual beside a soma owns no peak


def test_of_two_rois_closer_than_half_a_diameter_only_the_stronger_is_a_cell() -> None:
    rng = np.random.default_rng(3)
    frames = 600

    def firing() -> np.ndarray:
        transients = np.zeros(frames)
        for t in rng.choice(frames - 20, 12, replace=False):
            transients[t:t + 20] += np.exp(-np.arange(20) / 7.0)
        return 1.0 + transients + rng.normal(0, 0.05, frames)

    # ROI 1 sits 3 px from ROI 0 (diameter 8) and fires at its own times, as a residual left by
    # non-rigid motion does; ROI 2 is 5 px from ROI 0, like a touching neighbour, and stays a cell
    stat = [_roi(20, 20, 4, 500.0), _roi(20, 23, 4, 80.0), _roi(25, 20, 4, 60.0)]
    traces = np.stack([firing(), firing(), firing()]).astype(np.float32)
    spks = np.zeros((3, frames), np.float32)
    spks[:, ::50] = 1.0
    r = run_in({"stat": stat, "roi_traces": traces, "spks": spks, "event_noise": [0.05] * 3, "diameter_px": 8.0,
                "mean_image": np.zeros((64, 64), np.float32)}, ["classify_cells"], {"fs": 15.0})
    assert abs(r["cell_features"][1]["neighbour_corr"]) < 0.3  # the correlation rule alone would keep it
    assert r["iscell"][0, 0] == 1 and r["iscell"][2, 0] == 1
    assert r["iscell"][1, 0] == 0
