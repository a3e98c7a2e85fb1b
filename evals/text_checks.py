"""Text validators: keyword, negation, regex, length, equals, contains, starts/ends_with, numeric."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from planexec.evals.base import (
    BadParams,
    EvalContext,
    Outcome,
    ValidatorSet,
    as_text,
    bounds,
    need,
    opt_bool,
    opt_choice,
    opt_number,
    range_text,
    string_list,
    within,
)

VALIDATORS = ValidatorSet()


def _fold(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.lower()


def _quoted(words: list[str]) -> str:
    return ", ".join(f"'{w}'" for w in words)


@VALIDATORS("keyword", params=("keywords", "mode", "case_sensitive"))
def keyword(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer contains all (or, with mode any, any) of the keywords."""
    words = string_list(params, "keywords")
    mode = opt_choice(params, "mode", ("all", "any"))
    case = opt_bool(params, "case_sensitive", False)
    text = _fold(as_text(answer), case)
    found = [w for w in words if _fold(w, case) in text]
    missing = [w for w in words if w not in found]
    ok = bool(found) if mode == "any" else not missing
    if ok:
        label = "keyword" if len(found) == 1 else "keywords"
        return Outcome(True, f"Found {label} {_quoted(found)}.")
    if mode == "any":
        return Outcome(False, f"None of the keywords found: {_quoted(words)}.")
    return Outcome(False, f"Missing keyword(s): {_quoted(missing)}.")


@VALIDATORS("negation", params=("keywords", "case_sensitive"))
def negation(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes only when none of the prohibited keywords occurs in the answer."""
    words = string_list(params, "keywords")
    case = opt_bool(params, "case_sensitive", False)
    text = _fold(as_text(answer), case)
    found = [w for w in words if _fold(w, case) in text]
    if not found:
        return Outcome(True, "No prohibited keywords found.")
    return Outcome(False, f"Prohibited keywords found: {', '.join(found)}")


_FLAG_LETTERS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


@functools.lru_cache(maxsize=512)
def compile_pattern(pattern: str, flags: str) -> re.Pattern[str]:
    """Compile once per (pattern, flags); an invalid pattern raises BadParams with re's reason."""
    bits = 0
    for letter in flags:
        if letter not in _FLAG_LETTERS:
            raise BadParams(f"params.flags may hold only the letters i, m, s, x, got {flags!r}")
        bits |= _FLAG_LETTERS[letter]
    try:
        return re.compile(pattern, bits)
    except re.error as exc:
        raise BadParams(f"invalid regex {pattern!r}: {exc}") from None


@VALIDATORS("regex", params=("pattern", "capture", "flags"))
def regex(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the pattern matches; the captured group (`capture`) is the output.

    Flags default to "s" (dot matches newlines) so a capture can span a fenced block.
    """
    pattern = need(params, "pattern", str, "a regular expression")
    flags = params.get("flags", "s")
    if not isinstance(flags, str):
        raise BadParams(f"params.flags must be a string of letters i, m, s, x, got {flags!r}")
    rx = compile_pattern(pattern, flags)
    capture = params.get("capture", 0)
    if isinstance(capture, bool) or not isinstance(capture, (int, str)):
        raise BadParams(f"params.capture must be a group number or name, got {capture!r}")
    if isinstance(capture, int) and not 0 <= capture <= rx.groups:
        raise BadParams(f"params.capture={capture} but the pattern has {rx.groups} group(s)")
    if isinstance(capture, str) and capture not in rx.groupindex:
        raise BadParams(f"params.capture={capture!r} is not a named group of the pattern")
    m = rx.search(as_text(answer))
    if m is None:
        return Outcome(False, f"Pattern {pattern!r} not found.")
    captured = m.group(capture)
    shown = captured if captured is None or len(captured) <= 60 else captured[:57] + "..."
    return Outcome(True, f"Pattern {pattern!r} matched ({shown!r}).", output=captured)


_SENTENCE_END = re.compile(r"[.!?]+(?:\s+|$)")


def measure(text: str, unit: str) -> int:
    """Length of `text` in characters, words or sentences."""
    if unit == "characters":
        return len(text)
    if unit == "words":
        return len(text.split())
    return len([s for s in _SENTENCE_END.split(text) if s.strip()])


@VALIDATORS("length", params=("min", "max", "unit"))
def length(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer's length in words (or characters, sentences) is within min/max."""
    unit = opt_choice(params, "unit", ("words", "characters", "sentences"))
    lo, hi = bounds(params, f"the allowed number of {unit}")
    n = measure(as_text(answer), unit)
    ok = within(n, lo, hi)
    verb = "within" if ok else "outside"
    return Outcome(ok, f"{n} {unit}, {verb} {range_text(lo, hi)}.")


def _string_param(params: dict[str, Any]) -> str:
    return need(params, "value", str, "the text to compare with")


@VALIDATORS("equals", params=("value", "case_sensitive", "strip"))
def equals(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer equals `value` (text is stripped first; numbers and JSON compare as values)."""
    if "value" not in params:
        raise BadParams("missing params.value (the expected answer)")
    expected = params["value"]
    if not isinstance(expected, str) or not isinstance(answer, str):
        ok = answer == expected and type(answer) is type(expected) or (
            _is_num(answer) and _is_num(expected) and float(answer) == float(expected)
        )
        return Outcome(ok, f"{answer!r} {'equals' if ok else 'differs from'} {expected!r}.")
    case = opt_bool(params, "case_sensitive", True)
    strip = opt_bool(params, "strip", True)
    got = answer.strip() if strip else answer
    want = expected.strip() if strip else expected
    ok = _fold(got, case) == _fold(want, case)
    return Outcome(ok, "Answer equals the expected text." if ok else f"Answer differs from {want[:60]!r}.")


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@VALIDATORS("contains", params=("value", "case_sensitive"))
def contains(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer contains the exact substring `value`."""
    value = _string_param(params)
    case = opt_bool(params, "case_sensitive", True)
    ok = _fold(value, case) in _fold(as_text(answer), case)
    return Outcome(ok, f"{'Contains' if ok else 'Does not contain'} {value!r}.")


@VALIDATORS("starts_with", params=("value", "case_sensitive"))
def starts_with(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer (leading whitespace ignored) starts with `value`."""
    value = _string_param(params)
    case = opt_bool(params, "case_sensitive", True)
    ok = _fold(as_text(answer).lstrip(), case).startswith(_fold(value, case))
    return Outcome(ok, f"{'Starts' if ok else 'Does not start'} with {value!r}.")


@VALIDATORS("ends_with", params=("value", "case_sensitive"))
def ends_with(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the answer (trailing whitespace ignored) ends with `value`."""
    value = _string_param(params)
    case = opt_bool(params, "case_sensitive", True)
    ok = _fold(as_text(answer).rstrip(), case).endswith(_fold(value, case))
    return Outcome(ok, f"{'Ends' if ok else 'Does not end'} with {value!r}.")


_NUMBER = re.compile(
    r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d])"
    r"|(?<![\w.])[-+−]?\.\d+(?:[eE][-+]?\d+)?"
)


def numbers_in(text: str) -> list[tuple[int, int, float]]:
    """Every number in `text` with its span; '$45,230' reads as 45230, '−3' as -3."""
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace(",", "").replace("−", "-")
        try:
            value = float(raw)
        except ValueError:
            continue
        if math.isfinite(value):
            out.append((m.start(), m.end(), value))
    return out


_GAP = re.compile(r"[\s:=]*")


def find_number(text: str, label: str | None, window: int = 80) -> float | None:
    """The number next to a mention of `label`, else the first number.

    Right before the label ("1000 rows") wins; otherwise the first number within `window`
    characters after it ("average revenue is $45,230").
    """
    nums = numbers_in(text)
    if not label:
        return nums[0][2] if nums else None
    lowered, needle = text.lower(), label.lower()
    start = lowered.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = [v for s, e, v in nums if e <= start and _GAP.fullmatch(text, e, start)]
        if before:
            return before[-1]
        after = [v for s, _, v in nums if end <= s <= end + window]
        if after:
            return after[0]
        start = lowered.find(needle, end)
    return None


@VALIDATORS("numeric", params=("value", "tolerance", "rel_tolerance", "min", "max", "label"))
def numeric(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the number (near `label`, or the first one) equals `value` within tolerance or lies in [min, max]."""
    expected = opt_number(params, "value")
    tol = opt_number(params, "tolerance", 0.0) or 0.0
    rel = opt_number(params, "rel_tolerance", 0.0) or 0.0
    if tol < 0 or rel < 0:
        raise BadParams("params.tolerance and params.rel_tolerance must not be negative")
    if expected is None:
        lo, hi = bounds(params, "give params.value or a range")
    else:
        lo, hi = opt_number(params, "min"), opt_number(params, "max")
    label = params.get("label")
    if label is not None and not isinstance(label, str):
        raise BadParams(f"params.label must be text, got {label!r}")
    if _is_num(answer):
        got: float | None = float(answer)
    else:
        got = find_number(as_text(answer), label)
    if got is None or not math.isfinite(got):
        where = f" after {label!r}" if label else ""
        return Outcome(False, f"No number found{where}.")
    checks = []
    ok = True
    if expected is not None:
        allowed = max(tol, rel * abs(expected), 1e-9 * max(1.0, abs(expected)))
        diff = abs(got - expected)
        ok = diff <= allowed
        checks.append(f"expected {expected:g} ± {allowed:.3g} (off by {diff:.3g})")
    if lo is not None or hi is not None:
        in_range = within(got, lo, hi)
        ok = ok and in_range
        checks.append(f"range {range_text(lo, hi)}")
    return Outcome(ok, f"Found {got:g}; {'; '.join(checks)}: {'pass' if ok else 'fail'}.", output=got)

