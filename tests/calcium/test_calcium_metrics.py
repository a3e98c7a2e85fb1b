"""Cell and event matching: one-to-one within a distance or frame tolerance."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.tools.calcium_metrics import Score, event_f1, match_cells


def test_perfect_and_empty() -> None:
    cells = [[10, 10], [30, 40]]
    m = match_cells(cells, cells)
    assert (m.tp, m.fp, m.fn, m.f1) == (2, 0, 0, 1.0)
    assert match_cells([], []).f1 == 1.0
    assert match_cells(cells, []).f1 == 0.0 and match_cells([], cells).precision == 0.0


def test_distance_limit_and_one_to_one() -> None:
    m = match_cells([[0, 0]], [[0, 4.0]])
    assert m.tp == 1
    assert match_cells([[0, 0]], [[0, 4.01]]).tp == 0
    # two detections near one cell: only one may match
    m = match_cells([[0, 0]], [[0, 1], [1, 0]])
    assert (m.tp, m.fp, m.fn) == (1, 1, 0)


def test_hungarian_beats_greedy() -> None:
    # greedy would pair true 0 with det 0 (dist 1) and leave true 1 unmatched (dist 5 to det 1)
    truth = [[0, 0], [0, 3.5]]
    found = [[0, 1], [0, -3]]
    assert match_cells(truth, found).tp == 2


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 20))
def test_permuting_and_jittering_detections_keeps_full_score(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 500, (n, 2))
    found = truth[rng.permutation(n)] + rng.uniform(-1.5, 1.5, (n, 2))
    m = match_cells(truth, found)
    assert m.f1 == 1.0 and len(m.pairs) == n
    assert all(np.hypot(*(truth[t] - found[d])) <= 4 for t, d in m.pairs)


def test_event_f1_counts_tolerance_and_cell_identity() -> None:
    cells = match_cells([[0, 0], [50, 50]], [[50, 51], [1, 0]])  # detections in swapped order
    truth_spikes = [[10, 40], [5]]
    events = [
        {"cell": 1, "frame": 12},  # true cell 0, within 2 frames
        {"cell": 1, "frame": 43},  # 3 frames off: false positive, and 40 is missed
        {"cell": 0, "frame": 5},   # true cell 1
        {"cell": 0, "frame": 10},  # right frame, wrong cell: false positive
    ]
    s = event_f1(truth_spikes, events, cells, n_detected_cells=2)
    assert (s.tp, s.fp, s.fn) == (2, 2, 1)


def test_events_of_unmatched_cells_are_false_positives() -> None:
    cells = match_cells([[0, 0]], [[0, 0], [90, 90]])
    s = event_f1([[3]], [{"cell": 0, "frame": 3}, {"cell": 1, "frame": 7}], cells, 2)
    assert (s.tp, s.fp, s.fn) == (1, 1, 0)


def test_score_ratios() -> None:
    s = Score(tp=8, fp=2, fn=0)
    assert s.precision == 0.8 and s.recall == 1.0 and abs(s.f1 - 16 / 18) < 1e-12
