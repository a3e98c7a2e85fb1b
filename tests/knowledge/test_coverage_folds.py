"""Leave-set-out scoring never widens the cards with the set it scores; k-fold fits on the other folds only."""

from __future__ import annotations

from planexec.action_cards import hand_cards
from planexec.actions import actions_from
from planexec.knowledge.calibration import CoveragePair, load_coverage_pairs
from planexec.knowledge.coverage_folds import Scored, kfold_scored, leave_set_out, threshold_curve
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import KeywordScorer
from planexec.tools import default_registry


def test_each_set_is_scored_with_cards_the_other_sets_widened() -> None:
    registry, caps = default_registry(), read_capability_dir(default_seed_dir())
    seen: list[set[str]] = []

    def actions_with(cards: dict) -> list:
        seen.append({t for c in cards.values() for t in (*c.serves, *(n.text for n in c.not_served))})
        return actions_from(registry, caps, cards)

    pairs = load_coverage_pairs()
    scored = leave_set_out(pairs, "bc", KeywordScorer(), actions_with)
    assert [x.pair for x in scored] == [p for p in pairs if p.set == "b"] + [p for p in pairs if p.set == "c"]
    hand = {t for c in hand_cards().values() for t in (*c.serves, *(n.text for n in c.not_served))}
    only_b = {p.query for p in pairs if p.set == "b"} - {p.query for p in pairs if p.set != "b"} - hand
    only_c = {p.query for p in pairs if p.set == "c"} - {p.query for p in pairs if p.set != "c"} - hand
    assert only_b and only_c
    assert not only_b & seen[0] and only_c & seen[0]  # set b is scored with set c's pairs, not its own
    assert not only_c & seen[1] and only_b & seen[1]


def scored(action: str, serves: bool, score: float) -> Scored:
    return Scored(CoveragePair(f"{action} {score}", action, serves), score, score, "")


def test_a_threshold_only_the_held_out_fold_would_pick_is_not_used() -> None:
    train = [scored("a", True, 0.9), scored("a", False, 0.2), scored("b", True, 0.8), scored("b", False, 0.3),
             scored("c", True, 0.1)]
    report = kfold_scored(train, k=3, min_precision=0.9, shipped=0.5)
    fold = next(f for f in report.folds if "c" in f.actions)
    assert fold.recall == 0.0 and fold.threshold > 0.1
    assert report.shipped == (0.5, 1.0, 2 / 3)


def test_the_threshold_curve_measures_each_threshold() -> None:
    pairs = [scored("a", True, 0.9), scored("a", False, 0.5), scored("b", True, 0.4)]
    assert threshold_curve(pairs, (0.3, 0.6)) == [(0.3, 2 / 3, 1.0), (0.6, 1.0, 0.5)]
