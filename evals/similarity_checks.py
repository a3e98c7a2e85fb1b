"""Similarity validators: levenshtein and rouge_l (exact, bit-parallel) and semantic_similarity (embeddings)."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

from planexec.errors import UsageError
from planexec.evals.base import (
    BadParams,
    CheckUnavailable,
    EvalContext,
    Outcome,
    ValidatorSet,
    as_text,
    opt_bool,
    opt_number,
)

VALIDATORS = ValidatorSet()


def _match_masks(pattern: Sequence[Hashable]) -> dict[Hashable, int]:
    masks: dict[Hashable, int] = {}
    for i, item in enumerate(pattern):
        masks[item] = masks.get(item, 0) | (1 << i)
    return masks


def levenshtein_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Edit distance (insert, delete, substitute) by Myers' bit-parallel algorithm.

    The longer sequence becomes the bit vector and the loop runs over the shorter one:
    a Python-level step costs far more than a few machine words of big-integer arithmetic.
    """
    if len(a) > len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq = _match_masks(b)
    mask, high = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for item in a:
        eq = peq.get(item, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Longest common subsequence length by Hyyrö's bit-parallel recurrence (loop over the shorter)."""
    if len(a) > len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return 0
    peq = _match_masks(b)
    mask = (1 << m) - 1
    v = mask
    for item in a:
        u = v & peq.get(item, 0)
        v = ((v + u) | (v - u)) & mask
    return m - v.bit_count()


_WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 over lower-cased word tokens."""
    cand, ref = tokens(candidate), tokens(reference)
    if not cand or not ref:
        return 1.0 if cand == ref else 0.0
    lcs = lcs_length(cand, ref)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(cand), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)


def _reference(params: dict[str, Any]) -> str:
    for key in ("value", "reference"):
        if isinstance(params.get(key), str):
            return params[key]
    raise BadParams("missing params.value (the reference text, a string)")


def _threshold(params: dict[str, Any], default: float) -> float:
    t = opt_number(params, "threshold", default)
    assert t is not None
    if not 0.0 <= t <= 1.0:
        raise BadParams(f"params.threshold must lie in [0, 1], got {t:g}")
    return t


@VALIDATORS("levenshtein", params=("value", "threshold", "max_distance", "case_sensitive"))
def levenshtein(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when 1 - distance/longer length >= threshold (default 0.8), or distance <= max_distance."""
    ref = _reference(params)
    threshold = _threshold(params, 0.8)
    max_distance = opt_number(params, "max_distance")
    if max_distance is not None and max_distance < 0:
        raise BadParams("params.max_distance must not be negative")
    text = as_text(answer).strip()
    if not opt_bool(params, "case_sensitive", True):
        text, ref = text.lower(), ref.lower()
    ref = ref.strip()
    d = levenshtein_distance(text, ref)
    sim = 1.0 - d / max(len(text), len(ref)) if (text or ref) else 1.0
    ok = d <= max_distance if max_distance is not None else sim >= threshold
    limit = f"distance <= {max_distance:g}" if max_distance is not None else f"similarity >= {threshold:g}"
    return Outcome(ok, f"Edit distance {d}, similarity {sim:.3f} ({limit}).", score=sim)


@VALIDATORS("rouge_l", params=("value", "threshold"))
def rouge_l_check(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the ROUGE-L F1 against the reference text is >= threshold (default 0.5)."""
    ref = _reference(params)
    threshold = _threshold(params, 0.5)
    f1 = rouge_l(as_text(answer), ref)
    ok = f1 >= threshold
    return Outcome(ok, f"ROUGE-L F1 {f1:.3f} ({'>=' if ok else '<'} {threshold:g}).", score=f1)


def embedder(name: str) -> Any:
    """The process-wide embedder of planexec.knowledge (the model loads once, on first use)."""
    try:
        from planexec.knowledge import get_embedder
    except ImportError:
        try:
            from planexec.knowledge.embedder import get_embedder
        except ImportError as exc:
            raise CheckUnavailable(f"semantic_similarity needs planexec.knowledge.get_embedder: {exc}") from None
    try:
        return get_embedder(name)
    except UsageError as exc:
        raise CheckUnavailable(f"no embedding model: {exc}") from None


@VALIDATORS("semantic_similarity", params=("value", "threshold"), deterministic=False)
def semantic_similarity(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the cosine similarity of local sentence embeddings is >= threshold (default 0.7)."""
    ref = _reference(params)
    threshold = _threshold(params, 0.7)
    vectors = embedder(ctx.embedder).embed([as_text(answer), ref])
    cosine = float(max(-1.0, min(1.0, float(vectors[0] @ vectors[1]))))
    ok = cosine >= threshold
    return Outcome(ok, f"Cosine similarity {cosine:.3f} ({'>=' if ok else '<'} {threshold:g}).", score=cosine)
