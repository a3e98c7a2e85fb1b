"""The learned coverage decision: fitting, what it reads from a candidate, and the shipped weights."""

from __future__ import annotations

import dataclasses
import random

import pytest

from planexec.coverage import Candidate
from planexec.coverage_model import FEATURES, WORDING, LearnedDecision, pair_features, shipped_model
from planexec.knowledge.calibration import precision_recall


def cand(name: str, semantic: float, vetoes: tuple[str, ...] = (), penalty: float = 0.0) -> Candidate:
    return Candidate(name, "run_capability", semantic - penalty, semantic, not vetoes, "rule reason", vetoes)


def synthetic(n: int, seed: int) -> tuple[list[list[float]], list[bool]]:
    """Pairs that serve when similar, unvetoed and ahead of the other action (with label noise)."""
    rng = random.Random(seed)
    xs, ys = [], []
    for _ in range(n):
        sem, other = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9)
        vetoes = ("conflict",) if rng.random() < 0.3 else ()
        c = cand("a", sem, vetoes)
        xs.append(pair_features(c, [c, cand("b", other)]))
        ys.append(sem > 0.5 and not vetoes and sem > other - 0.1 and rng.random() > 0.03)
    return xs, ys


def test_fitted_weights_separate_held_out_pairs_at_the_asked_precision() -> None:
    model = LearnedDecision.fit(*synthetic(400, 1), min_precision=0.95)
    xs, ys = synthetic(400, 2)  # fresh pairs, not the fitted ones
    p, r = precision_recall([model.probability(x) >= model.threshold for x in xs], ys)
    assert p >= 0.9 and r >= 0.8
    veto = FEATURES.index("veto conflict")
    assert model.weights[veto] < 0 and model.weights[FEATURES.index("semantic")] > 0


def test_features_read_the_margin_over_the_closest_other_action() -> None:
    mine, rival = cand("a", 0.7, penalty=0.1), cand("b", 0.5)
    x = dict(zip(FEATURES, pair_features(mine, [mine, rival]), strict=True))
    assert x["margin"] == pytest.approx(0.2) and x["top"] == 1.0
    assert x["specifics"] == pytest.approx(-0.1) and x["clean"] == 1.0
    y = dict(zip(FEATURES, pair_features(rival, [mine, rival]), strict=True))
    assert y["margin"] == pytest.approx(-0.2) and y["top"] == 0.0


def test_decide_scores_with_the_probability_and_keeps_the_veto_as_reason() -> None:
    model = LearnedDecision.fit(*synthetic(300, 3))
    vetoed, clean = cand("a", 0.85, ("conflict",)), cand("b", 0.85)
    out = {c.name: c for c in model.decide([vetoed, clean, cand("c", 0.2)])}
    assert not out["a"].accepted and out["a"].reason == "rule reason"
    assert out["b"].accepted and out["b"].reason.startswith("p ")
    assert not out["c"].accepted and "below" in out["c"].reason
    assert all(0.0 <= c.score <= 1.0 for c in out.values())


def test_weights_round_trip_and_stale_ones_name_the_fix() -> None:
    model = LearnedDecision.fit(*synthetic(200, 4), fitted_on="synthetic")
    assert LearnedDecision.from_json(model.to_json()) == model
    stale = dataclasses.replace(model, features=FEATURES[:-1])
    with pytest.raises(ValueError, match="--write-model"):
        LearnedDecision.from_json(stale.to_json())


def test_the_shipped_weights_serve_a_close_clean_pair_and_reject_a_vetoed_one() -> None:
    model = shipped_model()
    assert model is not None and set(model.features) <= {*FEATURES, *WORDING} and 0.0 < model.threshold < 1.0
    assert "sets" in model.fitted_on
    strong = cand("a", 0.8)
    assert model.probability(pair_features(strong, [strong, cand("b", 0.4)], model.features)) >= model.threshold
    # a veto is evidence, not a rule: "segment the cells with Mask R-CNN" is close to segmentation (0.6) and
    # names a method (a word no action says) that none does
    vetoed = dataclasses.replace(cand("a", 0.6, ("unknown method",)), unexplained=0.3, foreign=0.25)
    assert model.probability(pair_features(vetoed, [vetoed, cand("b", 0.5)], model.features)) < model.threshold
    if "unexplained" in model.features:  # the same pair, but the clause's words are ones the action never says
        odd = dataclasses.replace(strong, unexplained=1.0, foreign=1.0)
        assert model.probability(pair_features(odd, [odd, cand("b", 0.4)], model.features)) < model.threshold


def test_wording_counts_the_clause_words_an_action_never_says() -> None:
    from planexec.actions import Action
    from planexec.coverage_wording import unexplained_words

    # names no shipped action card has: a card would widen these actions' words
    props = Action("cell_shape", "run_capability", "capability", "Area and eccentricity of each cell.",
                   examples=("how large is each cell",))
    count = Action("cell_total", "run_capability", "capability", "Count the cells.", examples=("how many cells",))
    cands = [cand("cell_shape", 0.6), cand("cell_total", 0.4)]
    plain, rare = (unexplained_words(q, [props, count], cands) for q in ("area of each cell", "Feret diameter of each cell"))
    assert plain[0].unexplained == pytest.approx(0.0) and plain[0].foreign == pytest.approx(0.0)
    assert rare[0].unexplained > 0.5 and rare[0].foreign == pytest.approx(2 / 3)
    assert plain[1].unexplained > 0.0, "the counter never says area"
    xs, ys = synthetic(100, 5)
    with pytest.raises(ValueError, match="11 feature columns for 2 names"):
        LearnedDecision.fit(xs, ys, features=("semantic", "unexplained"))
    model = LearnedDecision.fit([[x[0], 0.0] for x in xs], ys, features=("semantic", "unexplained"))
    assert model.features == ("semantic", "unexplained") and len(model.weights) == 2
