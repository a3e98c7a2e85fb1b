"""The coverage pairs cover the library, and the k-fold evaluation never fits on a held-out action."""

from __future__ import annotations

from planexec.actions import actions_from
from planexec.knowledge.calibration import CoveragePair, kfold_coverage, load_coverage_pairs
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import KeywordScorer
from planexec.tools import default_registry


def library() -> list:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


def test_the_pairs_cover_every_starter_capability_and_curve_or_table_tool() -> None:
    pairs = load_coverage_pairs()
    names = {a.name for a in library() if a.type != "code"}
    assert {p.action for p in pairs} == names - {"python_code", "python_coder"}
    assert len(pairs) >= 300
    for name in names:
        mine = [p for p in pairs if p.action == name]
        assert any(p.serves for p in mine) and any(p.kind == "hard_negative" for p in mine), name
    assert {p.set for p in pairs} == set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789αβγ")
    for written in "defhijklmnopq":  # the sets written from the user's side (p, q held out; d-f and h-o development)
        mine = [p for p in pairs if p.set == written]
        assert len(mine) >= 60 and {"different", "hard_negative", "paraphrase"} <= {p.kind for p in mine}, written
    for fresh in "efghijklmnopq":
        assert {p.action for p in pairs if p.set == fresh} == names - {"python_code", "python_coder"}, fresh


def test_kfold_holds_out_whole_actions_and_fits_only_on_the_rest() -> None:
    actions = library()
    pairs = [p for p in load_coverage_pairs() if p.set == "a"]
    report = kfold_coverage(pairs, actions, KeywordScorer(), k=5)
    held = [a for f in report.folds for a in f.actions]
    assert sorted(held) == sorted({p.action for p in pairs}) and len(held) == len(set(held))
    assert sum(f.n_pairs for f in report.folds) == len(pairs)
    assert 0.0 <= report.precision <= 1.0 and 0.0 <= report.recall <= 1.0


def test_a_threshold_that_only_fits_the_held_out_fold_is_not_used() -> None:
    """One action's positives score low: fitting on the other actions cannot learn to accept them."""
    actions = [a for a in library() if a.name in ("count_cells", "max_projection", "detect_events")]
    pairs = [CoveragePair("count the cells", "count_cells", True),
             CoveragePair("how many neurons are there", "count_cells", True),
             CoveragePair("max projection of the stack", "max_projection", True),
             CoveragePair("median projection of the stack", "max_projection", False),
             CoveragePair("qqq zzz", "detect_events", True)]
    report = kfold_coverage(pairs, actions, KeywordScorer(), k=3)
    fold = next(f for f in report.folds if "detect_events" in f.actions)
    assert fold.recall == 0.0
