"""The learned coverage decision end to end: k-fold fitting never sees a held-out action, and the
shipped weights decide real clauses with the packaged MiniLM."""

from __future__ import annotations

import dataclasses

from planexec.actions import actions_from
from planexec.coverage import Judge, library_vocabulary
from planexec.knowledge.calibration import kfold_learned, load_coverage_pairs
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import EmbeddingScorer, KeywordScorer
from planexec.tools import default_registry


def library() -> list:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


def test_kfold_learned_holds_out_whole_actions() -> None:
    pairs = [p for p in load_coverage_pairs() if p.set in "bc"]
    report = kfold_learned(pairs, library(), KeywordScorer(), k=4)
    held = [a for f in report.folds for a in f.actions]
    assert sorted(held) == sorted({p.action for p in pairs}) and len(held) == len(set(held))
    assert sum(f.n_pairs for f in report.folds) == len(pairs)
    assert all(0.0 < f.threshold < 1.0 for f in report.folds)


def test_the_learned_judge_serves_a_paraphrase_and_refuses_an_unknown_method(minilm) -> None:
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm), learned=True),
                                vocabulary=library_vocabulary(actions))
    assert judge.learned is not None
    assert Judge.for_scorer(EmbeddingScorer(minilm)).learned is None, "the hand rules stay the default"
    best = judge.candidates("how many neurons are in the field of view", actions)[0]
    assert best.accepted and best.name == "count_cells" and 0.0 <= best.score <= 1.0
    refused = judge.candidates("segment the cells with Mask R-CNN", actions)
    assert not any(c.accepted for c in refused)
    assert "R-CNN" in next(c for c in refused if c.name.startswith("segment")).reason
