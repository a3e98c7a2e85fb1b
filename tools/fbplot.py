"""Functional boxplots: band depths, the boxplot's statistics and a plain-data summary of them.

Definitions follow Sun & Genton (2011) with bands of J=2 curves. Modified band depth is the
mean over grid points (as R's `fda::fbplot`) and is computed exactly from per-point ranks
(Sun, Genton & Nychka 2012) in O(p·n log n); band depth is exact too, with pairwise bit tests
restricted to the pairs that can still contain the curve. Ties count as inside a band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from planexec.errors import ToolError

__all__ = [
    "CurveDataError",
    "as_curves",
    "band_depth",
    "functional_boxplot_summary_statistics",
    "modified_band_depth",
    "statistics_summary",
]

METHODS = {"mbd": "mbd", "mfbd": "mbd", "bd": "bd", "fbd": "bd"}
"""Accepted depth names: UVisBox's fbd/mfbd are aliases of bd/mbd."""


class CurveDataError(ToolError, ValueError):
    """Curve data that cannot be analysed; the message says what to change."""


def as_curves(data: Any, name: str = "curves") -> np.ndarray:
    """`data` as a finite float array of shape (n_curves >= 3, n_points >= 1), or a clear error."""
    try:
        arr = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise CurveDataError(
            f"the data in {name} is not numeric; pass numbers, one curve per row (n_curves × n_points)"
        ) from None
    if arr.ndim == 1:
        raise CurveDataError(
            f"{name} holds a 1-D array of {arr.size} values; pass a 2-D array with one curve "
            "per row (n_curves × n_points)"
        )
    if arr.ndim != 2:
        raise CurveDataError(
            f"{name} has shape {arr.shape}; pass a 2-D array with one curve per row "
            "(n_curves × n_points)"
        )
    n, p = arr.shape
    if n < 3:
        raise CurveDataError(f"{name} holds {n} curve(s); band depth needs at least 3 curves")
    if p < 1:
        raise CurveDataError(f"{name} has no points; each curve needs at least one value")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, t = (int(v) for v in np.argwhere(bad)[0])
        raise CurveDataError(
            f"{name} contains {int(bad.sum())} NaN or infinite value(s) (first in curve {i} "
            f"at point {t}); remove those curves or fill the gaps before computing depths"
        )
    return arr


def _order_counts(curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each curve and point: how many curves lie strictly below, and strictly above.

    Returned transposed, shape (p, n), since every computation here runs per grid point.
    """
    n, p = curves.shape
    cols = np.ascontiguousarray(curves.T)
    order = np.argsort(cols, axis=1)
    ordered = np.sort(cols, axis=1)
    rows = np.arange(p)[:, None]
    below = np.empty((p, n), dtype=np.int64)
    above = np.empty((p, n), dtype=np.int64)
    ties = ordered[:, 1:] == ordered[:, :-1]
    if not ties.any():
        below[rows, order] = np.arange(n)
        above[:] = n - 1 - below
        return below, above
    # With ties, a value's "strictly below" count is where its run of equal values starts.
    idx = np.broadcast_to(np.arange(n), (p, n))
    edge = np.ones((p, 1), dtype=bool)
    starts = np.hstack([edge, ~ties])
    ends = np.hstack([~ties, edge])
    first = np.maximum.accumulate(np.where(starts, idx, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, idx, n)[:, ::-1], axis=1)[:, ::-1]
    below[rows, order] = first
    above[rows, order] = n - 1 - last
    return below, above


def modified_band_depth(curves: Any) -> np.ndarray:
    """MBD of each curve: the share of (pair, grid point) combinations whose band holds it.

    At one point a curve misses only the bands of two curves both strictly below or both
    strictly above it, so the count inside is C(n,2) - C(below,2) - C(above,2).
    """
    x = as_curves(curves)
    n, p = x.shape
    below, above = _order_counts(x)
    pairs = n * (n - 1) / 2
    missed = (below * (below - 1) + above * (above - 1)).sum(axis=0) / 2
    return (p * pairs - missed) / (p * pairs)


def _packed_sides(curves: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Bit rows marking where each curve lies strictly above, then strictly below, `ref`."""
    sides = np.concatenate([curves > ref, curves < ref], axis=1)
    packed = np.packbits(sides, axis=1)
    pad = -packed.shape[1] % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return packed.view(np.uint64)


def _good_pairs(left: np.ndarray, right: np.ndarray) -> int:
    """How many (left row, right row) combinations never sit on the same side of the curve."""
    clash = (left[:, None, 0] & right[None, :, 0]) != 0
    for w in range(1, left.shape[1]):
        clash |= (left[:, None, w] & right[None, :, w]) != 0
    return left.shape[0] * right.shape[0] - int(np.count_nonzero(clash))


def band_depth(curves: Any) -> np.ndarray:
    """BD (J=2) of each curve: the share of curve pairs whose band holds it at every point.

    A holding pair needs one curve >= and one <= the curve at every point. At the point
    where the curve is most extreme, that leaves few candidate pairs; only those are tested,
    all points at once, with packed bits.
    """
    x = as_curves(curves)
    n, _ = x.shape
    below, above = _order_counts(x)
    # Candidates at point t: (curves >= x_i) × (curves <= x_i); pick the t with fewest.
    pivot = np.argmin((n - below) * (n - above), axis=0)
    counts = np.empty(n)
    for i in range(n):
        bits = _packed_sides(x, x[i])
        t = pivot[i]
        level, col = x[i, t], x[:, t]
        high = np.flatnonzero(col >= level)
        low = np.flatnonzero(col <= level)
        equal = np.flatnonzero(col == level)
        good = _good_pairs(bits[high], bits[low])
        # Pairs inside `equal` were seen in both orders, plus each one with itself.
        inner = _good_pairs(bits[equal], bits[equal])
        self_pairs = int(np.count_nonzero((bits[equal] == 0).all(axis=1)))
        counts[i] = good - (inner + self_pairs) / 2
    return counts / (n * (n - 1) / 2)


def _top_count(fraction: float, n: int) -> int:
    """⌈fraction·n⌉ clipped to 1..n, robust to float noise (0.7·10 is 7, not 8)."""
    return min(n, max(1, math.ceil(round(fraction * n, 9))))


def _band_name(q: float) -> str:
    return f"{int(q)}_percentile_band" if float(q).is_integer() else f"{q:g}_percentile_band"


def functional_boxplot_summary_statistics(
    curves: Any,
    method: str = "mbd",
    prob: float = 0.5,
    factor: float = 1.5,
    percentiles: Sequence[float] = (25, 50, 75, 90),
    outlier_rule: str = "fence",
) -> dict[str, Any]:
    """Depths, median, percentile bands, central region, fences, whiskers and outliers.

    Curves are ranked by depth (BD ties broken by MBD, then by index). The median is the
    deepest curve; a q-percentile band is the envelope of the ⌈q·n/100⌉
    deepest curves, the central region that of the ⌈prob·n⌉ deepest; fences inflate the
    central region by `factor` times its pointwise width. `outlier_rule="fence"` flags
    curves crossing a fence anywhere; `"band"` flags the curves left out of the widest
    percentile band (UVisBox's rule). Whiskers are the envelope of the curves not flagged.
    """
    x = as_curves(curves)
    n, _ = x.shape
    key = METHODS.get(str(method).lower())
    if key is None:
        raise CurveDataError(f"unknown depth method {method!r}; choose 'mbd' or 'bd'")
    if not 0 < prob <= 1:
        raise CurveDataError(f"prob must be in (0, 1], got {prob}")
    if factor < 0:
        raise CurveDataError(f"factor must be >= 0, got {factor}")
    qs = sorted({float(q) for q in percentiles})
    if not qs or qs[0] <= 0 or qs[-1] > 100:
        raise CurveDataError(f"percentiles must be in (0, 100], got {list(percentiles)}")
    if outlier_rule not in ("fence", "band"):
        raise CurveDataError(f"unknown outlier rule {outlier_rule!r}; choose 'fence' or 'band'")

    mbd = modified_band_depth(x)
    depth = mbd if key == "mbd" else band_depth(x)
    # Noisy curves often share the minimal BD; break ties by MBD (R fbplot's "Both").
    order = np.lexsort((-mbd, -depth))
    ranked = x[order]

    def envelope(k: int) -> tuple[np.ndarray, np.ndarray]:
        return ranked[:k].min(axis=0), ranked[:k].max(axis=0)

    bands = {_band_name(q): envelope(_top_count(q / 100, n)) for q in qs}
    low, high = envelope(_top_count(prob, n))
    width = high - low
    fences = (low - factor * width, high + factor * width)
    if outlier_rule == "fence":
        flagged = ((x < fences[0]) | (x > fences[1])).any(axis=1)
        outliers = np.flatnonzero(flagged)
    else:
        outliers = np.sort(order[_top_count(qs[-1] / 100, n):])
    kept = np.setdiff1d(np.arange(n), outliers)
    whiskers = (x[kept].min(axis=0), x[kept].max(axis=0)) if kept.size else (low, high)
    return {
        "method": key,
        "depth": depth,
        "median": x[order[0]].copy(),
        "median_index": int(order[0]),
        "percentile_bands": bands,
        "central_region": (low, high),
        "fences": fences,
        "whiskers": whiskers,
        "outliers": outliers,
        "outlier_rule": outlier_rule,
        "sorted_indices": order,
        "sorted_curves": ranked,
        "prob": float(prob),
        "factor": float(factor),
    }


def _median_profile(median: np.ndarray) -> dict[str, Any]:
    """Trend, fitted slope, fluctuation around the fit, smoothness and range of the median.

    The trend compares the mean of the last tenth with the first tenth: a net change under
    30% of the value range is "flat" (a full sine period is flat, not decreasing).
    """
    p = median.size
    lo, hi = float(median.min()), float(median.max())
    span = hi - lo
    if p >= 2:
        grid = np.linspace(0.0, 1.0, p)
        slope, intercept = np.polyfit(grid, median, 1)
        residual = median - (slope * grid + intercept)
    else:
        slope, residual = 0.0, np.zeros(1)
    tenth = max(1, p // 10)
    net = float(median[-tenth:].mean() - median[:tenth].mean())
    ratio = net / span if span > 0 else 0.0
    trend = "flat" if abs(ratio) < 0.3 else ("increasing" if ratio > 0 else "decreasing")
    first = np.diff(median)
    second = np.diff(median, 2)
    rough = float(second.std() / first.std()) if first.size > 1 and first.std() > 0 else 0.0
    return {
        "trend": trend,
        "overall_slope": float(slope),
        "net_change": net,
        "fluctuation_level": float(residual.std() / span) if span > 0 else 0.0,
        "smoothness_score": 1.0 / (1.0 + rough),
        "value_range": (lo, hi),
        "mean_value": float(median.mean()),
    }


def _widths(low: np.ndarray, high: np.ndarray) -> dict[str, Any]:
    w = high - low
    return {
        "mean_width": float(w.mean()),
        "max_width": float(w.max()),
        "min_width": float(w.min()),
        "max_width_index": int(w.argmax()),
    }


def uncertainty_level(score: float) -> str:
    """Words for the uncertainty score: low below 0.15, moderate below 0.35, else high."""
    return "low" if score < 0.15 else ("moderate" if score < 0.35 else "high")


def statistics_summary(stats: dict[str, Any], curves: Any) -> dict[str, Any]:
    """Plain JSON-ready numbers describing the boxplot: shape, median, bands, outliers.

    The uncertainty score is the central region's mean width over the ensemble's total
    value range (0 = all curves agree, 1 = the central half spans everything).
    """
    x = as_curves(curves)
    n, p = x.shape
    low, high = stats["central_region"]
    total = float(x.max() - x.min())
    score = float((high - low).mean() / total) if total > 0 else 0.0
    outliers = [int(i) for i in stats["outliers"]]
    depth = np.asarray(stats["depth"])
    return {
        "data_shape": {"n_curves": n, "n_points": p},
        "method": stats["method"],
        "median": {"index": int(stats["median_index"]), **_median_profile(stats["median"])},
        "bands": {
            "band_widths": {k: _widths(*b) for k, b in stats["percentile_bands"].items()},
            "central_region": _widths(low, high),
            "central_share": float(stats.get("prob", 0.5)),
            "overall_uncertainty_score": score,
            "uncertainty_level": uncertainty_level(score),
        },
        "outliers": {
            "count": len(outliers),
            "indices": outliers,
            "outlier_percentage": 100.0 * len(outliers) / n,
            "rule": stats["outlier_rule"],
        },
        "depth": {"max": float(depth.max()), "min": float(depth.min()), "mean": float(depth.mean())},
    }
