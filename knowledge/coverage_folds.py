"""Held-out figures of the coverage decision when labelled pairs widen the action cards.

The cards carry the development sets' labelled pairs (`planexec.action_cards.LABELLED_SETS`), so a
development pair scored with the shipped cards is scored against itself. Each development set is
therefore scored with cards widened by the other sets only (leave one set out: each set was written
by another person at another time), and thresholds are fitted on those scores, k-fold by action. A
held-out set is scored with the shipped cards, which none of its pairs widened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from planexec.action_cards import hand_cards, labelled_pairs, widened
from planexec.knowledge.calibration import (
    CoveragePair,
    FoldResult,
    KFoldReport,
    best_threshold,
    precision_recall,
)
from planexec.knowledge.reuse import ReusePolicy


@dataclass(frozen=True)
class Scored:
    """A labelled pair with the decision's score (-10 when a veto refused it), its cosine and the reason."""

    pair: CoveragePair
    score: float
    cosine: float
    reason: str


def score_pairs(pairs: Sequence[CoveragePair], actions: Sequence[Any], scorer: Any) -> list[Scored]:
    """Each pair's clause judged against its own action alone, every score kept (no threshold)."""
    from planexec.coverage import Judge, library_vocabulary
    from planexec.coverage_actions import upstream_tasks

    by_name = {a.name: a for a in actions}
    judge = Judge(scorer, ReusePolicy(threshold=-10.0), vocabulary=library_vocabulary(actions),
                  upstream=upstream_tasks(actions))
    out = []
    for p in pairs:
        cand = judge.candidates(p.query, [by_name[p.action]])[0]
        out.append(Scored(p, cand.score if cand.accepted else -10.0, cand.semantic, cand.reason))
    return out


def leave_set_out(pairs: Sequence[CoveragePair], sets: str, scorer: Any,
                  actions_with: Callable[[dict], Sequence[Any]]) -> list[Scored]:
    """The pairs of `sets`, each set scored with cards widened by the other sets' pairs only.
    `actions_with(cards)` builds the library's actions with those cards."""
    out: list[Scored] = []
    for s in sets:
        others = "".join(x for x in sets if x != s)
        actions = actions_with(widened(hand_cards(), labelled_pairs(others)))
        out += score_pairs([p for p in pairs if p.set == s], actions, scorer)
    return out


def kfold_scored(train: Sequence[Scored], test: Sequence[Scored] | None = None, k: int = 5,
                 min_precision: float = 0.95, shipped: float | None = None) -> KFoldReport:
    """Thresholds fitted on `train`'s pairs of the other folds' actions, measured on the held-out fold
    of `test` (default `train`), for the decision and for plain cosine."""
    test = list(train) if test is None else list(test)
    names = sorted({s.pair.action for s in (*train, *test)})
    results: list[FoldResult] = []
    decided: list[tuple[bool, bool, bool]] = []
    errors: list[str] = []
    for held in (names[i::k] for i in range(k)):
        tr = [s for s in train if s.pair.action not in held]
        fold = [s for s in test if s.pair.action in held]
        labels_tr = [s.pair.serves for s in tr]
        t = best_threshold([s.score for s in tr], labels_tr, min_precision)
        tc = best_threshold([s.cosine for s in tr], labels_tr, min_precision)
        labels = [s.pair.serves for s in fold]
        dec = [s.score >= t for s in fold]
        cos = [s.cosine >= tc for s in fold]
        p, r = precision_recall(dec, labels)
        cp, cr = precision_recall(cos, labels)
        results.append(FoldResult(tuple(held), len(fold), t, p, r, tc, cp, cr, 0.0))
        decided += list(zip(labels, dec, cos, strict=True))
        errors += [f"{'missed' if s.pair.serves else 'wrongly served'}: {s.pair.query!r} vs {s.pair.action} "
                   f"({s.reason})" for s, d in zip(fold, dec, strict=True) if d != s.pair.serves]
    labels = [x[0] for x in decided]
    p, r = precision_recall([x[1] for x in decided], labels)
    cp, cr = precision_recall([x[2] for x in decided], labels)
    all_labels = [s.pair.serves for s in test]
    tb = best_threshold([s.cosine for s in test], all_labels, min_precision)
    bp, br = precision_recall([s.cosine >= tb for s in test], all_labels)
    at = None
    if shipped is not None:
        at = (shipped, *precision_recall([s.score >= shipped for s in test], all_labels))
    return KFoldReport(tuple(results), p, r, cp, cr, tb, bp, br, tuple(errors), at)


def threshold_curve(scored: Sequence[Scored], thresholds: Sequence[float]) -> list[tuple[float, float, float]]:
    """(threshold, precision, recall) of the decision on `scored` at each threshold."""
    labels = [s.pair.serves for s in scored]
    return [(t, *precision_recall([s.score >= t for s in scored], labels)) for t in thresholds]


__all__ = ["Scored", "kfold_scored", "leave_set_out", "score_pairs", "threshold_curve"]
