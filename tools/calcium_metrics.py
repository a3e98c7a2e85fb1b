"""Score detected cells and calcium events against ground truth (one-to-one matching).

Cells match when centroids lie within `max_dist` pixels (Hungarian assignment on distance);
events match when they belong to a matched cell pair and lie within `tolerance` frames.
Shared by tests, the benchmark and evals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment


@dataclass(frozen=True)
class Score:
    """True positives, false positives and false negatives, with the usual ratios."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else 1.0


@dataclass(frozen=True)
class CellMatch(Score):
    """A cell score plus the matched (true index, detected index) pairs."""

    pairs: tuple[tuple[int, int], ...] = field(default=())


def _assign(cost: np.ndarray, limit: float) -> list[tuple[int, int]]:
    """Minimum-cost one-to-one pairs whose cost is within `limit`."""
    if cost.size == 0:
        return []
    big = limit * 10 + 1e6
    padded = np.where(cost <= limit, cost, big)
    rows, cols = linear_sum_assignment(padded)
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if cost[r, c] <= limit]


def match_cells(
    true_centroids: Sequence[Sequence[float]] | np.ndarray,
    detected_centroids: Sequence[Sequence[float]] | np.ndarray,
    max_dist: float = 4.0,
) -> CellMatch:
    """Pair true and detected [row, col] centroids one-to-one within `max_dist` pixels."""
    truth = np.asarray(true_centroids, dtype=float).reshape(-1, 2)
    found = np.asarray(detected_centroids, dtype=float).reshape(-1, 2)
    dist = np.hypot(*(truth[:, None, :] - found[None, :, :]).transpose(2, 0, 1))
    pairs = _assign(dist, max_dist)
    return CellMatch(
        tp=len(pairs), fp=len(found) - len(pairs), fn=len(truth) - len(pairs), pairs=tuple(pairs)
    )


def _event_frames(events: Iterable[Mapping[str, Any]], n_cells: int) -> list[list[int]]:
    per_cell: list[list[int]] = [[] for _ in range(n_cells)]
    for event in events:
        cell = int(event["cell"])
        if 0 <= cell < n_cells:
            per_cell[cell].append(int(event["frame"]))
    return per_cell


def event_f1(
    true_spikes: Sequence[Sequence[int]],
    events: Iterable[Mapping[str, Any]],
    cells: CellMatch,
    n_detected_cells: int,
    tolerance: int = 2,
    window: tuple[int, int] | None = None,
) -> Score:
    """Score events ({"cell", "frame", ...}, detected-cell indices) against true spike frames.

    An event matches a spike within ±`tolerance` frames, or, with `window=(early, late)`,
    from `early` frames before to `late` frames after it (the issue-13 scoring uses (2, 4):
    a transient's peak follows its spike). Events of unmatched detected cells count as false
    positives; spikes of unmatched true cells as false negatives.
    """
    events = list(events)
    detected = _event_frames(events, n_detected_cells)
    early, late = window if window is not None else (tolerance, tolerance)
    tp = 0
    for t, d in cells.pairs:
        a = np.asarray(true_spikes[t], dtype=float)
        b = np.asarray(detected[d], dtype=float)
        lag = b[None, :] - a[:, None]  # detected minus true
        cost = np.where((lag >= -early) & (lag <= late), np.abs(lag), np.inf)
        tp += len(_assign(cost, float(max(early, late))))
    n_true = sum(len(s) for s in true_spikes)
    return Score(tp=tp, fp=len(events) - tp, fn=n_true - tp)


def to_reference(
    true_centroids: Sequence[Sequence[float]] | np.ndarray,
    true_shifts: np.ndarray,
    reg_offsets: np.ndarray | None,
) -> np.ndarray:
    """True centroids moved into a registration's reference frame, so registered ROIs can be scored.

    Content at true position c sits at c + true_shifts[t] in frame t, and at q + reg_offsets[t]
    for reference position q, so q = c + median over t of (true_shifts - reg_offsets). Each
    pipeline picks its own reference; scoring in it is fair to all of them.
    """
    truth = np.asarray(true_centroids, dtype=float).reshape(-1, 2)
    if reg_offsets is None or len(reg_offsets) == 0:
        return truth
    delta = np.median(np.asarray(true_shifts, float) - np.asarray(reg_offsets, float), axis=0)
    return truth + delta
