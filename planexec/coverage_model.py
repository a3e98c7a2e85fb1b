"""The learned coverage decision: a logistic regression over the rule signals of a clause-action pair.

The hand rules (`planexec.coverage.Judge`) turn each signal into a veto or a fixed penalty, and
those choices were tuned on the development pairs. Here the same signals are features whose
weights are fitted: the semantic score, the penalties for unnamed specifics, each kind of veto,
and where the action stands among all actions for the clause (its margin over the best other
one). The weights ship in data/calibration/coverage_model.json, fitted on development pairs only
(`benchmarks/bench_reuse_decision.py --write-model`); the benchmark refits them per fold, so its
figures never include a phrasing of a test action. Inference is a dot product: no model loads.

Not the default (`Judge.for_scorer(..., learned=True)` asks for it): on development set g, written
without seeing the rules, it traced the same precision/recall curve as the hand rules (0.90/0.68 at
training precision 0.97, 0.76/0.84 at 0.90; the rules at 0.40: 0.77/0.84), and it served "give the
90% band of the curve ensemble" with the functional boxplot, which the requests tests refuse.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from planexec.datafiles import shipped

if TYPE_CHECKING:
    from planexec.coverage import Candidate

VETOES = ("conflict", "unknown method", "literature", "objects", "figure only", "no figure")
"""The kinds of veto `Judge` reads from a pair (a candidate lists every one that applies)."""

FEATURES = ("semantic", "specifics", "clean", "margin", "top", *(f"veto {v}" for v in VETOES))
"""semantic: best cosine to the action's phrasings; specifics: the rule score minus it (penalties for
unnamed specifics, bonus for agreeing ones); clean: no veto; margin: semantic minus the best other
action's; top: no other action is closer."""

WORDING = ("unexplained", "foreign")
"""Features a model may add (`planexec.coverage_wording`; the shipped one does, `--write-model --wording`):
unexplained: the rarity-weighted share of the clause's content words the action's texts never say;
foreign: the share that no action says."""


def pair_features(cand: Candidate, rivals: Sequence[Candidate], names: Sequence[str] = FEATURES) -> list[float]:
    """The feature vector `names` of one candidate, given every candidate scored for the same clause."""
    others = [r.semantic for r in rivals if r.name != cand.name]
    margin = cand.semantic - max(others) if others else 0.0
    values = [cand.semantic, cand.score - cand.semantic, float(not cand.vetoes), margin, float(margin > 0),
              *(float(v in cand.vetoes) for v in VETOES), cand.unexplained, cand.foreign]
    by_name = dict(zip((*FEATURES, *WORDING), values, strict=True))
    return [by_name[n] for n in names]


@dataclass(frozen=True)
class LearnedDecision:
    """Logistic-regression weights over `FEATURES` (standardised) and the probability that counts as covered."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    fitted_on: str = ""
    """Which labelled pairs the weights were fitted on (for the record, never read by the decision)."""
    features: tuple[str, ...] = FEATURES

    def probability(self, x: Sequence[float]) -> float:
        z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def decide(self, cands: Sequence[Candidate]) -> list[Candidate]:
        """Each candidate with its probability as score, accepted when it reaches the threshold."""
        out = []
        for c in cands:
            p = self.probability(pair_features(c, cands, self.features))
            ok = p >= self.threshold
            reason = (f"p {p:.2f} >= {self.threshold:.2f} (semantic {c.semantic:.2f})" if ok
                      else c.reason if c.vetoes else f"p {p:.2f} below {self.threshold:.2f} (semantic {c.semantic:.2f})")
            out.append(dataclasses.replace(c, score=p, accepted=ok, reason=reason))
        return out

    @classmethod
    def fit(cls, x: Sequence[Sequence[float]], y: Sequence[bool], min_precision: float = 0.97,
            l2: float = 1.0, fitted_on: str = "", features: Sequence[str] = FEATURES) -> LearnedDecision:
        """Weights by Newton's method on the L2-penalised log-likelihood; the threshold gives the best
        recall at `min_precision` on the same pairs."""
        import numpy as np

        from planexec.knowledge.calibration import best_threshold

        xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if xs.ndim != 2 or xs.shape[1] != len(features):
            raise ValueError(f"{xs.shape[-1]} feature columns for {len(features)} names {tuple(features)}")
        mu, sd = xs.mean(0), xs.std(0)
        sd[sd < 1e-6] = 1.0
        z = np.hstack([(xs - mu) / sd, np.ones((len(xs), 1))])
        w = np.zeros(z.shape[1])
        ridge = np.diag([l2] * (z.shape[1] - 1) + [1e-6])
        for _ in range(100):
            p = 1.0 / (1.0 + np.exp(-z @ w))
            grad = z.T @ (p - ys) + ridge @ w
            step = np.linalg.solve(z.T @ (z * (p * (1 - p))[:, None]) + ridge, grad)
            w -= step
            if np.abs(step).max() < 1e-9:
                break
        model = cls(tuple(float(v) for v in w[:-1]), float(w[-1]), tuple(float(v) for v in mu),
                    tuple(float(v) for v in sd), 0.5, fitted_on, tuple(features))
        probs = [model.probability(row) for row in xs.tolist()]
        return dataclasses.replace(model, threshold=float(best_threshold(probs, [bool(v) for v in y], min_precision)))

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> LearnedDecision:
        data = json.loads(text)
        model = cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
        unknown = set(model.features) - set(FEATURES) - set(WORDING)
        if unknown or len(model.weights) != len(model.features):
            raise ValueError(f"coverage model features {model.features} are not all known ({sorted(unknown)}); "
                             "refit it with benchmarks/bench_reuse_decision.py --write-model")
        return model


def model_path() -> Path:
    return shipped("calibration", "coverage_model.json")


@lru_cache(maxsize=1)
def shipped_model() -> LearnedDecision | None:
    """The shipped weights (fitted on development pairs with the packaged MiniLM), None if absent."""
    path = model_path()
    return LearnedDecision.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


__all__ = ["FEATURES", "VETOES", "WORDING", "LearnedDecision", "pair_features", "shipped_model"]
