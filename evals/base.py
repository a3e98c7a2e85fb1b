"""The validator seam: what a check returns, what it may look at, and how it declares itself.

A validator is a small function `fn(answer, params, ctx) -> Outcome`. It raises `BadParams`
when the evaluation point is malformed and `CheckUnavailable` when something it needs is
missing; the scorer turns either into a failed check whose note names the problem, so one
bad point never aborts an evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.serialize import to_jsonable

if TYPE_CHECKING:
    from planexec.evals.judge import JudgeCache
    from planexec.llm.base import LLM
    from planexec.models import RunResult


class BadParams(ValueError):
    """An evaluation point whose type or params cannot be used; the message names the fix."""


class CheckUnavailable(RuntimeError):
    """The check could not run (no judge, sandbox or timing): a failure that `not-` never inverts."""


@dataclass(frozen=True)
class Outcome:
    """One check's verdict: passed or not, why, an optional score, and an output for chains.

    `output` is a value derived from the input for the next chain step to check (a regex
    capture, parsed JSON, a number read from the text); checks that only measure leave it None.
    """

    ok: bool
    note: str
    output: Any = None
    score: float | None = None


@dataclass
class EvalContext:
    """What run-aware validators may look at besides the answer; every field is optional."""

    run: RunResult | None = None
    """The agent run that produced the answer (latency, cost, tool_used, step_count, status)."""
    results: dict[str, Any] | None = None
    """Key figures that points with `on = "results.<key>"` check; defaults to `run.results`."""
    elapsed: float | None = None
    """Wall-clock seconds of the run, measured by the suite runner (latency fallback)."""
    judge: LLM | None = None
    """The LLM that grades `llm_rubric` points."""
    judge_cache: JudgeCache | None = None
    """On-disk cache of judge verdicts, so a repeated run makes no judge calls."""
    embedder: str = "auto"
    """Embedding model name for `semantic_similarity` (see planexec.knowledge.get_embedder)."""
    cache_dir: Path | None = None
    """Where caches live when none is given explicitly."""

    def run_results(self) -> dict[str, Any]:
        if self.results is not None:
            return self.results
        return dict(self.run.results) if self.run is not None else {}


ValidatorFn = Callable[[Any, dict[str, Any], EvalContext], Outcome]


@dataclass(frozen=True)
class Validator:
    """A named check type with a one-line description and the params it understands."""

    name: str
    fn: ValidatorFn
    description: str
    params: tuple[str, ...] = ()
    deterministic: bool = True


@dataclass
class ValidatorSet:
    """The validators one module contributes (its module-level `VALIDATORS`)."""

    items: list[Validator] = field(default_factory=list)

    def __call__(
        self, name: str, *, params: tuple[str, ...] = (), deterministic: bool = True
    ) -> Callable[[ValidatorFn], ValidatorFn]:
        """Decorator: register `fn` under `name`; its docstring's first line describes it."""

        def deco(fn: ValidatorFn) -> ValidatorFn:
            doc = (fn.__doc__ or name).strip().splitlines()[0]
            self.items.append(Validator(name, fn, doc, params, deterministic))
            return fn

        return deco

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.items)


# --- params helpers: each raises BadParams naming the point type, the key and what it needs ---


def as_text(answer: Any) -> str:
    """The answer as text: strings as they are, other values as JSON-ish text."""
    if isinstance(answer, str):
        return answer
    if answer is None:
        return ""
    if isinstance(answer, (dict, list, tuple)):
        import json

        return json.dumps(to_jsonable(answer), ensure_ascii=False)
    return str(answer)


def need(params: dict[str, Any], key: str, kinds: type | tuple[type, ...], what: str) -> Any:
    """`params[key]`, which must exist and be of `kinds`; `what` describes it for the note."""
    if key not in params:
        raise BadParams(f"missing params.{key} ({what})")
    value = params[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise BadParams(f"params.{key} must be {what}, got {type(value).__name__}")
    return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def opt_number(params: dict[str, Any], key: str, default: float | None = None) -> float | None:
    """An optional finite number from params."""
    if params.get(key) is None:
        return default
    value = params[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadParams(f"params.{key} must be a finite number, got {value!r}")
    return float(value)


def opt_bool(params: dict[str, Any], key: str, default: bool) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise BadParams(f"params.{key} must be true or false, got {value!r}")
    return value


def opt_choice(params: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    """An optional string among `choices`; the first choice is the default."""
    value = params.get(key, choices[0])
    if value not in choices:
        raise BadParams(f"params.{key} must be one of {', '.join(choices)}, got {value!r}")
    return value


def string_list(params: dict[str, Any], key: str) -> list[str]:
    """A non-empty list of strings (a single string is accepted as a list of one)."""
    if key not in params:
        raise BadParams(f"missing params.{key} (a non-empty list of strings)")
    value = params[key]
    if isinstance(value, str) and value:
        return [value]
    if not isinstance(value, (list, tuple)) or not value or not all(
        isinstance(v, str) and v for v in value
    ):
        raise BadParams(f"params.{key} must be a non-empty list of non-empty strings, got {value!r}")
    return list(value)


def bounds(params: dict[str, Any], what: str) -> tuple[float | None, float | None]:
    """Optional `min`/`max`; at least one must be given and min <= max."""
    lo, hi = opt_number(params, "min"), opt_number(params, "max")
    if lo is None and hi is None:
        raise BadParams(f"give params.min and/or params.max ({what})")
    if lo is not None and hi is not None and lo > hi:
        raise BadParams(f"params.min ({lo:g}) is above params.max ({hi:g})")
    return lo, hi


def within(value: float, lo: float | None, hi: float | None) -> bool:
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def range_text(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"[{lo:g}, {hi:g}]"
    return f">= {lo:g}" if lo is not None else f"<= {hi:g}"
