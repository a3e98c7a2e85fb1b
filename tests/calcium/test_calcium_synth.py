"""The harder generator: reproducible, and it plants what it says (touching cells, motion, spikes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import InputError
from planexec.tools.calcium_synth import KINDS, SynthParams, generate_synth, kind


def test_same_parameters_same_movie() -> None:
    a, ta = kind("touching", 5, frames=40, size=48, cells=6)
    b, tb = kind("touching", 5, frames=40, size=48, cells=6)
    assert np.array_equal(a, b) and ta.spike_frames == tb.spike_frames
    c, _ = kind("touching", 6, frames=40, size=48, cells=6)
    assert not np.array_equal(a, c)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), sep=st.floats(5.0, 9.0), touching=st.sampled_from([0.0, 1.0]))
def test_cells_keep_their_distance_and_touching_ones_touch(seed: int, sep: float, touching: float) -> None:
    _, truth = generate_synth(SynthParams(frames=20, size=96, cells=8, min_sep=sep, touching=touching,
                                          spread=14.0, noise=0.0), seed=seed)
    c = np.array(truth.cell_centroids)
    d = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() >= sep - 1e-6
    if touching:
        assert (d.min(axis=1) <= sep + 1.5 + 1e-6).all()  # every cell has a touching partner


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), drift=st.floats(1.0, 5.0))
def test_motion_stays_within_the_stated_drift_and_frame_zero_is_still(seed: int, drift: float) -> None:
    _, truth = generate_synth(SynthParams(frames=60, size=48, cells=4, drift=drift, noise=0.0), seed=seed)
    assert np.abs(truth.shifts).max() <= drift + 1e-9
    assert np.abs(truth.shifts).max() >= 0.5 * drift  # the movie really moves
    assert not truth.shifts[0].any()


def test_spikes_are_valid_frames_and_show_in_the_movie() -> None:
    movie, truth = generate_synth(SynthParams(frames=120, size=48, cells=3, noise=0.0, bleach=0.0,
                                              min_sep=14.0, neuropil=0.0), seed=2)
    for (r, c), spikes in zip(truth.cell_centroids, truth.spike_frames, strict=True):
        assert all(0 <= f < 120 for f in spikes) and spikes == sorted(spikes)
        trace = movie[:, int(round(r)), int(round(c))]
        for f in spikes:
            if f > 0:
                assert trace[f] > trace[f - 1]  # a transient starts at every spike


def test_neuropil_follows_its_trace_outside_cells() -> None:
    movie, truth = generate_synth(SynthParams(frames=200, size=48, cells=2, noise=0.0, bleach=0.0,
                                              neuropil=0.3, min_sep=20.0), seed=1)
    c = np.array(truth.cell_centroids)
    rows, cols = np.mgrid[0:48, 0:48]
    far = np.min([np.hypot(rows - r, cols - q) for r, q in c], axis=0) > 10
    background = movie[:, far].mean(axis=1)
    assert np.corrcoef(background, truth.neuropil_trace)[0, 1] > 0.99


def test_every_kind_generates_and_bad_parameters_are_named() -> None:
    for name in KINDS:
        movie, truth = kind(name, 0, frames=30, size=64, cells=6)
        assert movie.shape == (30, 64, 64) and movie.dtype == np.float32 and truth.shifts.shape == (30, 2)
    with pytest.raises(InputError, match="unknown movie kind"):
        kind("nope", 0)
    with pytest.raises(InputError, match="cannot place"):
        generate_synth(SynthParams(size=20, cells=50))
