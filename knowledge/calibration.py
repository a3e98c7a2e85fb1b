"""Calibrate and measure the reuse decision on labelled pairs (data/calibration/reuse_pairs.json).

Reports precision and recall of `find_reusable`'s decision beside plain cosine similarity
at its best threshold, so the gain over cosine is measured, not assumed.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.datafiles import shipped
from planexec.knowledge.capability import Capability, Match
from planexec.knowledge.reuse import ReusePolicy

if TYPE_CHECKING:
    from planexec.knowledge.store import CapabilityStore


def default_pairs_path() -> Path:
    return shipped("calibration", "reuse_pairs.json")


@dataclass(frozen=True)
class Pair:
    """A request, the stored capability it is compared with, and whether reusing it is right."""

    query: str
    capability: str
    reuse: bool
    kind: str = ""
    inputs: tuple[str, ...] | None = None
    outputs: tuple[str, ...] | None = None


def load_pairs(path: Path | str | None = None) -> tuple[list[Capability], list[Pair]]:
    data = json.loads(Path(path or default_pairs_path()).read_text(encoding="utf-8"))
    caps = [Capability.from_json(dict(c), c.get("code", "")) for c in data["capabilities"]]
    pairs = [
        Pair(p["query"], p["capability"], bool(p["reuse"]), p.get("kind", ""),
             tuple(p["inputs"]) if "inputs" in p else None, tuple(p["outputs"]) if "outputs" in p else None)
        for p in data["pairs"]
    ]
    return caps, pairs


def precision_recall(decisions: Sequence[bool], labels: Sequence[bool]) -> tuple[float, float]:
    tp = sum(d and y for d, y in zip(decisions, labels, strict=True))
    fp = sum(d and not y for d, y in zip(decisions, labels, strict=True))
    fn = sum(y and not d for d, y in zip(decisions, labels, strict=True))
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def best_threshold(scores: Sequence[float], labels: Sequence[bool], min_precision: float = 0.95) -> float:
    """The threshold with the best recall at `min_precision` (else the best F1)."""
    candidates = sorted(set(scores))
    best, best_key = candidates[0] if candidates else 0.5, (-1.0, -1.0)
    for t in candidates:
        p, r = precision_recall([s >= t for s in scores], labels)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        key = (r if p >= min_precision else -1.0, f1)
        if key > best_key:
            best, best_key = t, key
    return best


@dataclass
class CalibrationReport:
    """Precision/recall of the reuse decision and of plain cosine, with the failing pairs."""

    n_pairs: int
    n_positive: int
    n_hard_negative: int
    precision: float
    recall: float
    threshold: float
    cosine_threshold: float
    cosine_precision: float
    cosine_recall: float
    cosine_at_policy_precision: float
    cosine_at_policy_recall: float
    errors: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"pairs: {self.n_pairs} ({self.n_positive} reuse, {self.n_hard_negative} hard negatives)",
            "note: measured on the pairs the rules and threshold were fitted to (training figures); "
            "held-out figures: benchmarks/bench_reuse_decision.py",
            f"reuse decision (threshold {self.threshold:.2f} + term agreement): "
            f"precision {self.precision:.3f}, recall {self.recall:.3f}",
            f"cosine only, best threshold {self.cosine_threshold:.3f}: "
            f"precision {self.cosine_precision:.3f}, recall {self.cosine_recall:.3f}",
            f"cosine only at the same threshold {self.threshold:.2f}: "
            f"precision {self.cosine_at_policy_precision:.3f}, recall {self.cosine_at_policy_recall:.3f}",
            *[f"  wrong: {e['query']!r} vs {e['capability']} ({e['reason']})" for e in self.errors],
        ]


def judge_pairs(store: CapabilityStore, pairs: Sequence[Pair]) -> list[Match]:
    """The store's reuse decision for each pair's request against that pair's capability."""
    return [
        store.assess(p.query, store.load(p.capability), store.similarity(p.query, store.load(p.capability)),
                     p.inputs, p.outputs)
        for p in pairs
    ]


def evaluate(store: CapabilityStore, pairs: Sequence[Pair]) -> CalibrationReport:
    """Measure the store's reuse decision and plain cosine on `pairs` (capabilities already saved)."""
    matches = judge_pairs(store, pairs)
    labels = [p.reuse for p in pairs]
    p, r = precision_recall([m.reusable for m in matches], labels)
    cos = [m.semantic for m in matches]
    t_cos = best_threshold(cos, labels)
    cp, cr = precision_recall([s >= t_cos for s in cos], labels)
    pp, pr = precision_recall([s >= store.policy.threshold for s in cos], labels)
    errors = [
        {"query": pair.query, "capability": pair.capability, "label": pair.reuse, "reason": m.reason,
         "semantic": round(m.semantic, 3)}
        for pair, m in zip(pairs, matches, strict=True) if m.reusable != pair.reuse
    ]
    return CalibrationReport(
        len(pairs), sum(labels), sum(x.kind == "hard_negative" for x in pairs), p, r,
        store.policy.threshold, t_cos, cp, cr, pp, pr, errors,
    )


def calibrate(store: CapabilityStore, pairs: Sequence[Pair], min_precision: float = 0.95) -> ReusePolicy:
    """A policy whose threshold gives the best recall at `min_precision` on `pairs` for this model."""
    matches = judge_pairs(store, pairs)
    base = store.policy
    scores = []
    for m in matches:
        vetoed = bool(m.conflicts) or m.io_agreement == 0.0
        scores.append(-1.0 if vetoed else m.score)
    t = best_threshold(scores, [p.reuse for p in pairs], min_precision)
    return dataclasses.replace(base, threshold=round(t - 1e-3, 3))


# ---- the coverage decision (clause vs tool or capability), k-fold by action ---------------------


@dataclass(frozen=True)
class CoveragePair:
    """A request clause, the action (tool or capability id) it is judged against, and whether it serves it."""

    query: str
    action: str
    serves: bool
    kind: str = ""
    set: str = "a"
    """a: used while the rules were changed; b, c: written after earlier changes and since seen;
    d: the held-out set, written before the latest rule changes (data/calibration/coverage_pairs.json says more)."""


def load_coverage_pairs(path: Path | str | None = None) -> list[CoveragePair]:
    """The labelled coverage pairs (data/calibration/coverage_pairs.json by default)."""
    data = json.loads(Path(path or shipped("calibration", "coverage_pairs.json")).read_text(encoding="utf-8"))
    return [CoveragePair(p["query"], p["action"], bool(p["serves"]), p.get("kind", ""), p.get("set", "a"))
            for p in data["pairs"]]


@dataclass(frozen=True)
class FoldResult:
    """One held-out fold: its actions, the thresholds fitted on the other folds, and the figures on this one."""

    actions: tuple[str, ...]
    n_pairs: int
    threshold: float
    precision: float
    recall: float
    cosine_threshold: float
    cosine_precision: float
    cosine_recall: float
    penalty: float = 0.1
    """The penalty per unnamed specific chosen on the training folds."""


@dataclass(frozen=True)
class KFoldReport:
    """Held-out precision/recall of the coverage decision and of plain cosine, per fold and pooled."""

    folds: tuple[FoldResult, ...]
    precision: float
    recall: float
    cosine_precision: float
    cosine_recall: float
    cosine_best_threshold: float
    cosine_best_precision: float
    cosine_best_recall: float
    errors: tuple[str, ...] = ()
    shipped: tuple[float, float, float] | None = None
    """(threshold, precision, recall) of the decision at the threshold planexec ships, on the same pairs."""


def kfold_coverage(pairs: Sequence[CoveragePair], actions: Sequence[Any], scorer: Any, k: int = 5,
                   min_precision: float = 0.95, test: Sequence[CoveragePair] | None = None,
                   penalties: Sequence[float] = (0.1,), shipped: float | None = None) -> KFoldReport:
    """Fit the decision's threshold on k-1 folds of actions, measure on the held-out fold, k times.

    No phrasing of a held-out action is seen in fitting: folds split the actions, and every pair of
    an action lands in that action's fold. Plain cosine gets the same treatment (its threshold
    fitted on the other folds), plus its best threshold on all pairs as an optimistic reference.
    With `test`, thresholds are fitted on `pairs` of the other folds and measured on `test`'s pairs
    of the held-out fold. With several `penalties` (per specific the action never names), each
    fold also picks the penalty that gives the best recall at `min_precision` on its training folds.
    With `shipped` (the threshold planexec uses), the decision at it is measured on the same pairs too.
    """
    from planexec.coverage import Judge, library_vocabulary
    from planexec.coverage_actions import upstream_tasks

    by_name = {a.name: a for a in actions}
    vocabulary = library_vocabulary(actions)  # the library's words, not labels: the same in every fold
    upstream = upstream_tasks(actions)

    def score(items: Sequence[CoveragePair], penalty: float) -> list[tuple[CoveragePair, float, float, str]]:
        # every pair scored (threshold -10); the fitted threshold is applied below
        judge = Judge(scorer, ReusePolicy(threshold=-10.0, unspecified_penalty=penalty), vocabulary=vocabulary,
                      upstream=upstream)
        out = []
        for p in items:
            cand = judge.candidates(p.query, [by_name[p.action]])[0]
            out.append((p, -10.0 if not cand.accepted else cand.score, cand.semantic, cand.reason))
        return out

    by_penalty = {x: (score(pairs, x), score(test, x) if test is not None else None) for x in penalties}
    scored = by_penalty[penalties[0]][0]
    tested = by_penalty[penalties[0]][1] or scored
    names = sorted({p.action for p in (*pairs, *(test or ()))})  # an action only `test` names is held out too
    folds = [names[i::k] for i in range(k)]
    results: list[FoldResult] = []
    decided: list[tuple[bool, bool, bool]] = []  # (label, decision, cosine decision)
    errors: list[str] = []
    for held in folds:
        fits = []
        for x, (sc, te) in by_penalty.items():
            tr = [s for s in sc if s[0].action not in held]
            t_x = best_threshold([s[1] for s in tr], [s[0].serves for s in tr], min_precision)
            p_x, r_x = precision_recall([s[1] >= t_x for s in tr], [s[0].serves for s in tr])
            fits.append(((r_x if p_x >= min_precision else -1.0, p_x, -x), x, t_x, te or sc))
        _, penalty, t, chosen = max(fits, key=lambda f: f[0])
        train = [s for s in scored if s[0].action not in held]
        fold = [s for s in chosen if s[0].action in held]
        cos_fold = [s for s in tested if s[0].action in held]
        tc = best_threshold([s[2] for s in train], [s[0].serves for s in train], min_precision)
        dec = [s[1] >= t for s in fold]
        cos = [s[2] >= tc for s in cos_fold]
        labels = [s[0].serves for s in fold]
        p, r = precision_recall(dec, labels)
        cp, cr = precision_recall(cos, labels)
        results.append(FoldResult(tuple(held), len(fold), t, p, r, tc, cp, cr, penalty))
        decided += list(zip(labels, dec, cos, strict=True))
        errors += [f"{'missed' if s[0].serves else 'wrongly served'}: {s[0].query!r} vs {s[0].action} ({s[3]})"
                   for s, d in zip(fold, dec, strict=True) if d != s[0].serves]
    labels = [x[0] for x in decided]
    p, r = precision_recall([x[1] for x in decided], labels)
    cp, cr = precision_recall([x[2] for x in decided], labels)
    all_labels = [s[0].serves for s in tested]
    tb = best_threshold([s[2] for s in tested], all_labels, min_precision)
    bp, br = precision_recall([s[2] >= tb for s in tested], all_labels)
    at = None
    if shipped is not None:
        at = (shipped, *precision_recall([s[1] >= shipped for s in tested], all_labels))
    return KFoldReport(tuple(results), p, r, cp, cr, tb, bp, br, tuple(errors), at)


def coverage_features(pairs: Sequence[CoveragePair], actions: Sequence[Any], scorer: Any,
                      cache: dict[tuple[str, str], list[float]] | None = None,
                      names: Sequence[str] | None = None) -> list[list[float]]:
    """The learned decision's features of each pair: its action's candidate among all actions for the clause.
    `cache` keeps them by (clause, action) across calls with the same actions and scorer."""
    from planexec.coverage import Judge, library_vocabulary
    from planexec.coverage_actions import upstream_tasks
    from planexec.coverage_model import FEATURES, WORDING, pair_features
    from planexec.coverage_wording import unexplained_words

    judge = Judge(scorer, ReusePolicy(threshold=-10.0), vocabulary=library_vocabulary(actions),
                  upstream=upstream_tasks(actions))
    cache = {} if cache is None else cache
    for p in pairs:
        if (p.query, p.action) not in cache:
            cands = unexplained_words(p.query, actions, judge.candidates(p.query, actions))
            cache.update({(p.query, c.name): pair_features(c, cands, (*FEATURES, *WORDING)) for c in cands})
    pick = [(*FEATURES, *WORDING).index(n) for n in (names or FEATURES)]
    return [[cache[p.query, p.action][i] for i in pick] for p in pairs]


def kfold_learned(pairs: Sequence[CoveragePair], actions: Sequence[Any], scorer: Any, k: int = 5,
                  min_precision: float = 0.97, test: Sequence[CoveragePair] | None = None,
                  shipped: Any = None, cache: dict[tuple[str, str], list[float]] | None = None,
                  features: Sequence[str] | None = None) -> KFoldReport:
    """Like `kfold_coverage` for the learned decision: weights and threshold fitted on the other folds'
    `pairs` only, measured on the held-out fold (of `test` when given). With `shipped` (the shipped
    `LearnedDecision`), its decisions on the same pairs are measured too."""
    from planexec.coverage_model import LearnedDecision

    test = list(test) if test is not None else list(pairs)
    cache = {} if cache is None else cache
    x_train, x_test = (coverage_features(pairs, actions, scorer, cache, features),
                       coverage_features(test, actions, scorer, cache, features))
    cos_train, cos_test = [x[0] for x in x_train], [x[0] for x in x_test]
    names = sorted({p.action for p in (*pairs, *test)})
    results: list[FoldResult] = []
    decided: list[tuple[bool, bool, bool]] = []
    errors: list[str] = []
    for held in (names[i::k] for i in range(k)):
        tr = [i for i, p in enumerate(pairs) if p.action not in held]
        te = [i for i, p in enumerate(test) if p.action in held]
        y_tr = [pairs[i].serves for i in tr]
        model = LearnedDecision.fit([x_train[i] for i in tr], y_tr, min_precision, **({"features": features} if features else {}))
        tc = best_threshold([cos_train[i] for i in tr], y_tr, min_precision)
        dec = [model.probability(x_test[i]) >= model.threshold for i in te]
        cos = [cos_test[i] >= tc for i in te]
        labels = [test[i].serves for i in te]
        p, r = precision_recall(dec, labels)
        cp, cr = precision_recall(cos, labels)
        results.append(FoldResult(tuple(held), len(te), model.threshold, p, r, tc, cp, cr, 0.0))
        decided += list(zip(labels, dec, cos, strict=True))
        errors += [f"{'missed' if test[i].serves else 'wrongly served'}: {test[i].query!r} vs {test[i].action} "
                   f"(p {model.probability(x_test[i]):.2f})" for i, d in zip(te, dec, strict=True) if d != test[i].serves]
    labels = [x[0] for x in decided]
    p, r = precision_recall([x[1] for x in decided], labels)
    cp, cr = precision_recall([x[2] for x in decided], labels)
    all_labels = [t.serves for t in test]
    tb = best_threshold(cos_test, all_labels, min_precision)
    bp, br = precision_recall([s >= tb for s in cos_test], all_labels)
    at = None
    if shipped is not None:
        xs = coverage_features(test, actions, scorer, cache, shipped.features)
        at = (shipped.threshold, *precision_recall([shipped.probability(x) >= shipped.threshold for x in xs], all_labels))
    return KFoldReport(tuple(results), p, r, cp, cr, tb, bp, br, tuple(errors), at)
