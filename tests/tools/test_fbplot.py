"""Band depths against their pairwise definitions and scikit-fda; boxplot statistics; summary."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import spearmanr

from planexec.errors import ToolError
from planexec.tools.curves_data import generate_ensemble_curves
from planexec.tools.fbplot import (
    CurveDataError,
    as_curves,
    band_depth,
    functional_boxplot_summary_statistics,
    modified_band_depth,
    statistics_summary,
)

skfda = pytest.importorskip("skfda")  # installed in .venv; see the report for the pins
from skfda.exploratory.depth import BandDepth, ModifiedBandDepth  # noqa: E402


def pairwise_depths(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BD and MBD straight from the definitions: every pair, every point, closed bands."""
    n = x.shape[0]
    bd = np.zeros(n)
    mbd = np.zeros(n)
    for j, k in itertools.combinations(range(n), 2):
        inside = (np.minimum(x[j], x[k]) <= x) & (x <= np.maximum(x[j], x[k]))
        bd += inside.all(axis=1)
        mbd += inside.mean(axis=1)
    pairs = n * (n - 1) / 2
    return bd / pairs, mbd / pairs


def _ensembles(values: st.SearchStrategy[float]) -> st.SearchStrategy[np.ndarray]:
    shapes = st.tuples(st.integers(3, 9), st.integers(1, 8))
    return shapes.flatmap(lambda s: arrays(np.float64, s, elements=values))


FLOATS = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
TIED = st.integers(-2, 2).map(float)  # few distinct values: ties everywhere


@settings(max_examples=80, deadline=None)
@given(x=st.one_of(_ensembles(FLOATS), _ensembles(TIED)))
def test_depths_equal_pairwise_definitions(x: np.ndarray) -> None:
    bd, mbd = pairwise_depths(x)
    np.testing.assert_allclose(band_depth(x), bd, rtol=0, atol=1e-12)
    np.testing.assert_allclose(modified_band_depth(x), mbd, rtol=0, atol=1e-12)


def test_identical_curves_are_all_maximally_deep() -> None:
    x = np.tile(np.linspace(0, 1, 6), (5, 1))
    assert np.all(band_depth(x) == 1.0)
    assert np.all(modified_band_depth(x) == 1.0)


def test_mbd_matches_the_rank_formula_without_ties() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(25, 40))
    n, p = x.shape
    ranks = x.argsort(axis=0).argsort(axis=0) + 1  # 1-based ranks per point
    expected = (((n - ranks) * (ranks - 1)).sum(axis=1) / p + n - 1) / math.comb(n, 2)
    np.testing.assert_allclose(modified_band_depth(x), expected, rtol=0, atol=1e-12)


def _random_walks(n: int, p: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, p)).cumsum(axis=1)


@pytest.mark.parametrize(
    "x",
    [
        _random_walks(40, 30, 0),
        np.round(_random_walks(30, 12, 1)),  # ties
        generate_ensemble_curves(n_curves=35, n_points=50, seed=2).state["curves"],
    ],
)
def test_band_depth_equals_scikit_fda(x: np.ndarray) -> None:
    expected = BandDepth()(skfda.FDataGrid(x, np.linspace(0, 1, x.shape[1])))
    np.testing.assert_allclose(band_depth(x), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mbd_order_matches_scikit_fda(seed: int) -> None:
    x = _random_walks(200, 60, seed)
    theirs = ModifiedBandDepth()(skfda.FDataGrid(x, np.linspace(0, 1, x.shape[1])))
    assert spearmanr(modified_band_depth(x), theirs).statistic >= 0.99


@pytest.mark.parametrize(
    ("method", "n_outliers"),
    # BD masks an outlier lying between a bigger one and the bulk, so it gets at most two.
    [("mbd", None), ("bd", 1), ("bd", 2)],
)
def test_planted_outliers_are_found(method: str, n_outliers: int | None) -> None:
    false_alarms = 0
    for seed in range(8):
        for n in (30, 60):
            out = generate_ensemble_curves(n_curves=n, seed=seed, n_outliers=n_outliers)
            stats = functional_boxplot_summary_statistics(out.state["curves"], method=method)
            found = set(stats["outliers"].tolist())
            planted = set(out.state["planted_outliers"])
            assert planted <= found, (seed, n, planted, found)
            false_alarms += len(found - planted)
    assert false_alarms <= 4


def test_statistics_follow_their_definitions() -> None:
    x = generate_ensemble_curves(n_curves=21, n_points=40, seed=5).state["curves"]
    stats = functional_boxplot_summary_statistics(x, prob=0.5, factor=1.5, percentiles=(50, 90))
    depth = modified_band_depth(x)
    order = stats["sorted_indices"]
    assert np.all(np.diff(depth[order]) <= 0)
    assert stats["median_index"] == int(np.argmax(depth))
    np.testing.assert_array_equal(stats["median"], x[np.argmax(depth)])
    np.testing.assert_array_equal(stats["sorted_curves"], x[order])
    top11 = x[order[:11]]  # ceil(0.5 * 21)
    low, high = stats["central_region"]
    np.testing.assert_array_equal(low, top11.min(axis=0))
    np.testing.assert_array_equal(high, top11.max(axis=0))
    np.testing.assert_array_equal(stats["percentile_bands"]["50_percentile_band"][1], high)
    top19 = x[order[:19]]  # ceil(0.9 * 21)
    np.testing.assert_array_equal(stats["percentile_bands"]["90_percentile_band"][0], top19.min(axis=0))
    lo_f, hi_f = stats["fences"]
    np.testing.assert_allclose(hi_f, high + 1.5 * (high - low))
    np.testing.assert_allclose(lo_f, low - 1.5 * (high - low))
    crossing = np.flatnonzero(((x < lo_f) | (x > hi_f)).any(axis=1))
    np.testing.assert_array_equal(stats["outliers"], crossing)
    kept = np.setdiff1d(np.arange(21), crossing)
    np.testing.assert_array_equal(stats["whiskers"][1], x[kept].max(axis=0))


def test_band_rule_flags_curves_outside_the_widest_band() -> None:
    x = _random_walks(20, 15, 4)
    stats = functional_boxplot_summary_statistics(x, percentiles=(25, 75), outlier_rule="band")
    np.testing.assert_array_equal(stats["outliers"], np.sort(stats["sorted_indices"][15:]))


def test_band_sizes_are_exact_ceilings() -> None:
    # 0.7 * 10 is 7.000000000000001 in floating point; the band must still hold 7 curves.
    x = np.arange(10.0)[:, None] * np.ones((1, 3))
    stats = functional_boxplot_summary_statistics(x, prob=0.7, percentiles=(70,))
    low, high = stats["central_region"]
    assert high[0] - low[0] == 6.0


def test_aliases_and_methods() -> None:
    x = _random_walks(12, 10, 6)
    np.testing.assert_array_equal(
        functional_boxplot_summary_statistics(x, method="fbd")["depth"], band_depth(x)
    )
    assert functional_boxplot_summary_statistics(x, method="mfbd")["method"] == "mbd"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (np.arange(10.0), "1-D"),
        (np.ones((2, 5)), "at least 3 curves"),
        (np.ones((2, 3, 4)), "2-D"),
        (np.ones((4, 0)), "no points"),
        (np.array([[1.0, np.nan], [1.0, 2.0], [0.0, 1.0]]), "NaN"),
        (np.array([[1.0, np.inf], [1.0, 2.0], [0.0, 1.0]]), "curve 0 at point 1"),
        ([["a", "b"], ["c", "d"], ["e", "f"]], "not numeric"),
    ],
)
def test_bad_curves_get_clear_errors(data: object, words: str) -> None:
    with pytest.raises(CurveDataError, match=words) as info:
        as_curves(data)
    assert isinstance(info.value, ToolError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"method": "depthy"}, "unknown depth method"),
        ({"prob": 0.0}, "prob"),
        ({"factor": -1.0}, "factor"),
        ({"percentiles": (0, 50)}, "percentiles"),
        ({"percentiles": ()}, "percentiles"),
        ({"outlier_rule": "zscore"}, "outlier rule"),
    ],
)
def test_bad_options_get_clear_errors(options: dict, words: str) -> None:
    with pytest.raises(CurveDataError, match=words):
        functional_boxplot_summary_statistics(_random_walks(5, 4, 0), **options)


def _trend(curves: np.ndarray) -> str:
    stats = functional_boxplot_summary_statistics(curves)
    return statistics_summary(stats, curves)["median"]["trend"]


def test_median_trend_words() -> None:
    grid = np.linspace(0, 1, 50)
    offsets = np.linspace(-0.1, 0.1, 9)[:, None]
    assert _trend(offsets + 2 * grid) == "increasing"
    assert _trend(offsets - 2 * grid) == "decreasing"
    assert _trend(offsets + np.sin(2 * np.pi * grid)) == "flat"


def test_summary_is_plain_json_and_scale_free() -> None:
    x = generate_ensemble_curves(n_curves=30, seed=1).state["curves"]
    summary = statistics_summary(functional_boxplot_summary_statistics(x), x)
    json.dumps(summary)  # no numpy values left
    scaled = statistics_summary(functional_boxplot_summary_statistics(10 * x + 3), 10 * x + 3)
    for key in ("overall_uncertainty_score",):
        assert scaled["bands"][key] == pytest.approx(summary["bands"][key])
    assert scaled["median"]["smoothness_score"] == pytest.approx(summary["median"]["smoothness_score"])
    assert scaled["median"]["trend"] == summary["median"]["trend"]
    assert summary["outliers"]["indices"] == sorted(summary["outliers"]["indices"])
    assert summary["data_shape"] == {"n_curves": 30, "n_points": 100}
    assert set(summary["bands"]["band_widths"]) == {f"{q}_percentile_band" for q in (25, 50, 75, 90)}


@settings(max_examples=40, deadline=None)
@given(x=_ensembles(FLOATS))
def test_summary_invariants(x: np.ndarray) -> None:
    stats = functional_boxplot_summary_statistics(x)
    summary = statistics_summary(stats, x)
    assert 0.0 <= summary["bands"]["overall_uncertainty_score"] <= 1.0
    assert 0.0 <= summary["median"]["smoothness_score"] <= 1.0
    out = summary["outliers"]
    assert out["count"] == len(out["indices"]) == len(stats["outliers"])
    assert out["outlier_percentage"] == pytest.approx(100 * out["count"] / x.shape[0])
    widths = [b["mean_width"] for b in summary["bands"]["band_widths"].values()]
    assert widths == sorted(widths)  # nested bands
