"""The reuse decision: may a stored capability run for a new request?

Cosine similarity alone cannot tell "median of each trace" from "mean of each trace"
(they embed almost identically), and reusing the wrong method silently gives a wrong
scientific result. So on top of the semantic score the request's specifics must agree
with the capability's: method and statistic names from contrast groups (Otsu/watershed,
mean/median, Pearson/Spearman, ...) may not conflict, numbers with their units (20th vs
8th percentile, 5 frames vs 5 s) may not differ, and named input/output variables should
overlap. A specific the capability never mentions (in its text or its code) costs a
penalty rather than a veto.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from planexec.knowledge.lexicon import LEXICON, STRICT_GROUPS

_COMPILED = [(g, c, re.compile(p)) for g, c, p in LEXICON]

_UNITS = {
    "%": "pct", "percent": "pct", "percentile": "pct", "percentiles": "pct",
    "hz": "hz", "frame": "frame", "frames": "frame", "s": "s", "sec": "s", "second": "s",
    "seconds": "s", "ms": "ms", "px": "px", "pixel": "px", "pixels": "px", "sd": "sd",
    "std": "sd", "sigma": "sd", "standard deviation": "sd", "standard deviations": "sd",
    "x": "x", "times": "x", "bins": "bin", "bin": "bin", "curves": "item", "cells": "item",
}
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*(st|nd|rd|th))?"
    r"(?:[\s-]*(%|percentiles?|percent|hz|frames?|seconds?|sec|ms|s|px|pixels?|sd|std|sigma|"
    r"standard deviations?|x|times|bins?|curves|cells))?(?![\w.])"
)
_DFF = re.compile(r"[δΔ]\s*f\s*/\s*f0?|\bd\s*f\s*/\s*f0?|delta[- ]?f(?: over |/)f|df over f|δf/f")


_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")


def normalise_notation(text: str) -> str:
    """Lower-case text with the notations of one quantity folded into one word (ΔF/F, dF/F -> dff) and words
    joined by a hyphen read apart ("band-depth boxplot" names band depth)."""
    return _HYPHEN.sub(" ", _DFF.sub(" dff ", text.lower()).replace("_", " "))


_normalise = normalise_notation


@dataclass(frozen=True)
class Terms:
    """The specifics named in a text: contrast-group terms and numbers with units."""

    groups: dict[str, frozenset[str]] = field(default_factory=dict)
    numbers: frozenset[tuple[float, str]] = frozenset()


def without_terms(text: str) -> str:
    """The text (normalised) with every method/statistic phrase blanked: "band depth" is not the word "band"."""
    norm = _normalise(text)
    for _, _, pattern in _COMPILED:
        norm = pattern.sub(" ", norm)
    return norm


def extract_terms(text: str) -> Terms:
    """Method/statistic terms by group, and (value, unit) numbers, found in `text`."""
    norm = _normalise(text)
    numbers = set()
    for m in _NUMBER.finditer(norm):
        unit = m.group(3) or ""
        numbers.add((float(m.group(1)), _UNITS.get(unit, unit)))
    groups: dict[str, set[str]] = {}
    for group, canon, pattern in _COMPILED:
        if pattern.search(norm):
            if group:
                groups.setdefault(group, set()).add(canon)
            norm = pattern.sub(" ", norm)
    stats = groups.get("statistic", set())
    if {"count", "sum"} <= stats and not _SUM.search(_IN_TOTAL.sub(" ", _normalise(text))):
        stats.discard("sum")  # "how many transients are there in total" asks a count, not a sum of values
    return Terms({g: frozenset(v) for g, v in groups.items()}, frozenset(numbers))


_IN_TOTAL = re.compile(r"\bin total\b")
_SUM = re.compile(r"\bsum\b|\btotal\b(?! (?:\w+ )?(?:number|count))")


def code_terms(code: str) -> tuple[Terms, frozenset[float]]:
    """Terms named in code identifiers (threshold_otsu -> otsu) and its numeric literals."""
    words = re.sub(r"[^A-Za-z0-9.]+", " ", code)
    literals = frozenset(float(v) for v in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w])", code))
    return extract_terms(words), literals


@dataclass(frozen=True)
class TermComparison:
    """Specifics of a request against a capability: contradicted, never named, or shared."""

    conflicts: list[str]
    unspecified: list[str]
    agreements: int


def compare_terms(query: Terms, cap: Terms, code: tuple[Terms, frozenset[float]] | None = None) -> TermComparison:
    """Compare the request's specifics with the capability's text (its code only fills gaps)."""
    conflicts: list[str] = []
    unspecified: list[str] = []
    agreements = 0
    code_t, literals = code or (Terms(), frozenset())
    for group, wanted in query.groups.items():
        have = cap.groups.get(group, frozenset())
        if have:
            if wanted <= have:
                agreements += 1
            else:
                conflicts.append(f"{group}: asks {'/'.join(sorted(wanted - have))}, capability does {'/'.join(sorted(have))}")
        elif wanted - code_t.groups.get(group, frozenset()):
            if group in STRICT_GROUPS:  # a plot or a detection step the capability does not do
                conflicts.append(f"{group}: asks {'/'.join(sorted(wanted))}, capability does not")
                continue
            unspecified.append(f"{group} {'/'.join(sorted(wanted))}")
    for value, unit in query.numbers:
        if any(v == value and (u == unit or not u or not unit) for v, u in cap.numbers):
            agreements += 1
            continue
        same_unit = [v for v, u in cap.numbers if unit and u == unit]
        if same_unit:
            conflicts.append(f"parameter {value:g}{unit} vs {', '.join(f'{v:g}{unit}' for v in same_unit)}")
        elif value not in literals:
            unspecified.append(f"parameter {value:g}{unit}")
    return TermComparison(conflicts, unspecified, agreements)


_SYNONYMS = {"signal": "trace", "fluorescence": "trace", "f": "trace", "img": "image", "frame": "image",
             "stack": "image", "movie": "image", "mask": "label", "segmentation": "label",
             "df": "dff", "deltaf": "dff", "delta": "dff"}


def _var_tokens(name: str) -> frozenset[str]:
    words = [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", _normalise(name))]
    return frozenset(_SYNONYMS.get(w, w) for w in words)


def io_agreement(
    inputs: Sequence[str] | None, outputs: Sequence[str] | None, cap_inputs: Sequence[str], cap_outputs: Sequence[str]
) -> float | None:
    """Share of the named variables (inputs with inputs, outputs with outputs) the capability has; None if none named."""
    scores: list[float] = []
    for asked, have in ((inputs or (), cap_inputs), (outputs or (), cap_outputs)):
        have_t = [_var_tokens(h) for h in have]
        for name in asked:
            t = _var_tokens(name)
            best = max((len(t & h) / len(t | h) for h in have_t if t | h), default=0.0)
            scores.append(1.0 if best >= 0.5 else best)
    return sum(scores) / len(scores) if scores else None


# Calibrated on data/calibration/reuse_pairs.json (see calibration.py); others fall back to it.
CALIBRATED_THRESHOLDS: dict[str, float] = {"all-MiniLM-L6-v2": 0.55, "hashing-384": 0.2}
DEFAULT_THRESHOLD = 0.55


@dataclass(frozen=True)
class ReusePolicy:
    """Reuse iff nothing conflicts and the combined score reaches `threshold`.

    combined = semantic - penalty * unspecified + bonus * min(agreements, 3) + io_weight * (io - 0.5)
    """

    threshold: float = DEFAULT_THRESHOLD
    unspecified_penalty: float = 0.1
    agreement_bonus: float = 0.04
    io_weight: float = 0.2

    @classmethod
    def for_model(cls, model: str) -> ReusePolicy:
        return cls(threshold=CALIBRATED_THRESHOLDS.get(model, DEFAULT_THRESHOLD))

    def score(self, semantic: float, terms: TermComparison, io: float | None) -> float:
        bonus = 0.0 if io is None else self.io_weight * (io - 0.5)
        return (semantic - self.unspecified_penalty * len(terms.unspecified)
                + self.agreement_bonus * min(terms.agreements, 3) + bonus)

    def decide(self, semantic: float, terms: TermComparison, io: float | None) -> tuple[bool, float, str]:
        """(reuse?, combined score, reason in words)."""
        combined = self.score(semantic, terms, io)
        io_text = "" if io is None else f", variables agree {io:.0%}"
        if terms.conflicts:
            return False, combined, "conflict: " + "; ".join(terms.conflicts)
        if io is not None and io == 0.0:
            return False, combined, "no named input/output variable matches"
        if combined < self.threshold:
            extra = f" (unspecified: {', '.join(terms.unspecified)})" if terms.unspecified else ""
            digits = 2 if round(combined, 2) < round(self.threshold, 2) else 3  # never "0.40 below 0.40"
            return False, combined, f"score {combined:.{digits}f} below {self.threshold:.{digits}f}{extra}{io_text}"
        return True, combined, f"semantic {semantic:.2f}, score {combined:.2f}, no conflicting specifics{io_text}"
