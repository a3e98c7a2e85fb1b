"""The synthetic movie generator: deterministic, and its ground truth matches the movie."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import InputError
from planexec.tools.calcium_demo import DemoParams, generate_demo, load_ground_truth, write_demo
from planexec.tools.calcium_io import load_stack


def test_same_seed_same_movie_other_seed_other_movie() -> None:
    a, ta = generate_demo(30, 5, 48, seed=3)
    b, tb = generate_demo(30, 5, 48, seed=3)
    c, _ = generate_demo(30, 5, 48, seed=4)
    np.testing.assert_array_equal(a, b)
    assert ta.to_json() == tb.to_json()
    assert not np.array_equal(a, c)


def test_movie_shape_type_and_range() -> None:
    movie, truth = generate_demo(40, 6, 64, seed=1)
    assert movie.shape == (40, 64, 64) and movie.dtype == np.float32
    assert 0.0 <= movie.min() and movie.max() <= 1.0
    assert truth.n_cells == 6 and len(truth.spike_frames) == 6


def test_cells_sit_on_bright_spots_of_the_mean_image() -> None:
    movie, truth = generate_demo(100, 8, 96, seed=2, noise=0.02)
    mean = movie.mean(axis=0)
    background = np.median(mean)
    for (r, c), s in zip(truth.cell_centroids, truth.cell_sigmas, strict=True):
        centre = mean[int(round(r)), int(round(c))]
        assert centre > background + 0.1
        far = mean[int(round(r)), int(np.clip(round(c + 4 * s), 0, 95))]
        assert centre > far + 0.05


def test_cells_do_not_overlap_and_avoid_the_border() -> None:
    _, truth = generate_demo(10, 20, 128, seed=5)
    cents = np.array(truth.cell_centroids)
    gaps = np.hypot(*(cents[:, None] - cents[None]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= 4 * DemoParams().cell_sigma_range[1] - 1e-6
    assert cents.min() >= 3 * DemoParams().cell_sigma_range[1] - 1e-6
    assert cents.max() <= 127 - 3 * DemoParams().cell_sigma_range[1] + 1e-6


def test_spikes_show_as_jumps_at_the_cell_centre() -> None:
    movie, truth = generate_demo(150, 5, 64, seed=7, noise=0.0)
    p = truth.params
    for (r, c), frames, amps in zip(
        truth.cell_centroids, truth.spike_frames, truth.spike_amplitudes, strict=True
    ):
        trace = movie[:, int(round(r)), int(round(c))].astype(float)
        rises = np.diff(trace, prepend=trace[0])
        for f in frames:
            if f > 0:
                assert rises[f] > 0.02  # the transient starts exactly at the spike frame
        quiet = np.setdiff1d(np.arange(1, len(trace)), frames)
        assert (rises[quiet] <= 1e-6).all()  # elsewhere it only decays or bleaches
        assert all(p.amplitude_range[0] <= a <= p.amplitude_range[1] for a in amps)


def test_noise_level_is_what_was_asked() -> None:
    clean, _ = generate_demo(20, 0, 64, seed=9, noise=0.0)
    noisy, _ = generate_demo(20, 0, 64, seed=9, noise=0.03)
    assert abs(float((noisy - clean).std()) - 0.03) < 0.002


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_spike_trains_respect_the_refractory_gap(seed: int) -> None:
    _, truth = generate_demo(300, 4, 64, seed=seed, noise=0.0)
    gap = truth.params.refractory_frames
    for frames in truth.spike_frames:
        assert frames == sorted(frames)
        assert all(0 <= f < 300 for f in frames)
        assert all(b - a > gap for a, b in zip(frames, frames[1:], strict=False))


def test_too_many_cells_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="fewer --cells or a larger --size"):
        generate_demo(5, 200, 32)


@pytest.mark.parametrize(("fmt", "bits"), [("png", 16), ("png", 8), ("tiff", 16)])
def test_written_demo_loads_back(tmp_path: Path, fmt: str, bits: int) -> None:
    written, truth = write_demo(tmp_path / "demo", 12, 3, 40, seed=1, format=fmt, bits=bits)
    movie, _ = generate_demo(12, 3, 40, seed=1)
    images, meta = load_stack(tmp_path / "demo")
    assert images.shape == movie.shape and meta.frames == 12
    np.testing.assert_allclose(images, movie, atol=0.6 / (2**bits - 1))
    stored = load_ground_truth(tmp_path / "demo")
    assert stored.to_json() == truth.to_json()
    data = json.loads((tmp_path / "demo" / "ground_truth.json").read_text())
    assert data["files"] == [p.name for p in written]
    assert data["parameters"]["seed"] == 1 and data["parameters"]["decay_s"] == 0.7


def test_rewriting_a_demo_replaces_it(tmp_path: Path) -> None:
    write_demo(tmp_path, 10, 2, 40, format="png")
    write_demo(tmp_path, 4, 2, 40, format="png")
    assert load_stack(tmp_path)[1].frames == 4


def test_a_users_non_empty_folder_needs_force(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(InputError, match="--force"):
        write_demo(tmp_path, 4, 2, 40)
    write_demo(tmp_path, 4, 2, 40, force=True)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_failed_generation_leaves_an_earlier_demo_intact(tmp_path: Path) -> None:
    write_demo(tmp_path, 5, 2, 40)
    with pytest.raises(InputError):
        write_demo(tmp_path, 5, 300, 40)
    assert load_stack(tmp_path)[1].frames == 5


def test_bad_format_and_bits(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format"):
        write_demo(tmp_path, format="gif")
    with pytest.raises(InputError, match="bits"):
        write_demo(tmp_path, bits=12)


def test_missing_ground_truth(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="demo-data"):
        load_ground_truth(tmp_path)
