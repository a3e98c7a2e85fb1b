"""Run evaluation points against an answer: negation, targets, chains, weights and dependencies.

A point is `{"text", "type", "params", "weight"?, "id"?, "depends_on"?, "steps"?, "on"?,
"metric"?}`. `on` picks what is checked: the answer (default), or `results.<key>` of the run.
The score is passed weight / total weight; a point whose dependency did not pass is skipped
and counts as failed, as the seed specifies.
"""

from __future__ import annotations

import math
import time
from typing import Any

from planexec.errors import UnknownNameError
from planexec.evals.base import BadParams, CheckUnavailable, EvalContext, Outcome, ValidatorSet
from planexec.evals.json_checks import follow, parse_path
from planexec.evals.registry import ValidatorRegistry, shared_validators

VALIDATORS = ValidatorSet()
MAX_CHAIN_DEPTH = 16

Details = list[dict[str, Any]]


@VALIDATORS("chain", params=("steps",))
def _chain_doc(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Runs `steps` in turn, each step's output is the next step's input; the last step decides."""
    return run_chain({"steps": params.get("steps")}, answer, ctx, shared_validators(), 0)


def run_evaluation_point(
    point: Any,
    answer: Any,
    ctx: EvalContext | None = None,
    registry: ValidatorRegistry | None = None,
) -> dict[str, Any]:
    """One point's result: `{"ok", "note", "duration_ms", "output"?, "score"?, "error"?}`; never raises."""
    start = time.perf_counter()
    error = False
    try:
        outcome = check(point, answer, ctx or EvalContext(), registry or shared_validators())
    except BadParams as exc:
        outcome, error = Outcome(False, f"Bad params: {exc}"), True
    except CheckUnavailable as exc:
        outcome, error = Outcome(False, f"Could not check: {exc}"), True
    except Exception as exc:  # a validator bug must not abort the evaluation
        outcome, error = Outcome(False, f"Validator error: {type(exc).__name__}: {exc}"), True
    result: dict[str, Any] = {
        "ok": bool(outcome.ok),
        "note": outcome.note,
        "duration_ms": (time.perf_counter() - start) * 1000,
    }
    if outcome.output is not None:
        result["output"] = outcome.output
    if outcome.score is not None:
        result["score"] = outcome.score
    if error:
        result["error"] = True
    return result


def check(point: Any, answer: Any, ctx: EvalContext, registry: ValidatorRegistry, depth: int = 0) -> Outcome:
    """The outcome of one point; raises BadParams / CheckUnavailable for the caller to report."""
    if not isinstance(point, dict):
        raise BadParams(f"an evaluation point must be an object with type and params, got {type(point).__name__}")
    kind = point.get("type")
    if not isinstance(kind, str) or not kind:
        raise BadParams(f"the point has no type; use one of: {', '.join(registry.names())}")
    negate = kind.startswith("not-")
    base = kind[4:] if negate else kind
    params = point.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise BadParams(f"params must be an object, got {type(params).__name__}")
    target = resolve_target(point.get("on"), answer, ctx)
    if base == "chain":
        outcome = run_chain(point, target, ctx, registry, depth)
    else:
        try:
            validator = registry.get(base)
        except UnknownNameError as exc:
            raise BadParams(str(exc)) from None
        outcome = validator.fn(target, params, ctx)
    if negate:
        return Outcome(not outcome.ok, f"Negated ({'passes' if not outcome.ok else 'fails'}): {outcome.note}",
                       outcome.output, outcome.score)
    return outcome


def resolve_target(on: Any, answer: Any, ctx: EvalContext) -> Any:
    """What a point checks: the answer, the run's `results`, or `results.<path>`."""
    if on is None or on == "answer":
        return answer
    if not isinstance(on, str) or not (on == "results" or on.startswith("results.") or on.startswith("results[")):
        raise BadParams(f"'on' must be 'answer', 'results' or 'results.<key>', got {on!r}")
    results = ctx.run_results()
    if on == "results":
        return results
    try:
        return follow(results, parse_path(on[len("results"):]))
    except KeyError as exc:
        raise CheckUnavailable(f"{on} is missing from the run's results: {exc.args[0]}") from None


def run_chain(point: dict[str, Any], answer: Any, ctx: EvalContext, registry: ValidatorRegistry, depth: int) -> Outcome:
    """Pipe each step's output into the next (a step without output passes its input on)."""
    if depth >= MAX_CHAIN_DEPTH:
        raise BadParams(f"chains nest deeper than {MAX_CHAIN_DEPTH} levels")
    steps = point.get("steps")
    if steps is None and isinstance(point.get("params"), dict):
        steps = point["params"].get("steps")
    if not isinstance(steps, list) or not steps:
        raise BadParams("a chain needs steps: a non-empty list of evaluation points")
    current, notes = answer, []
    outcome = Outcome(False, "")
    for i, step in enumerate(steps, 1):
        label = step.get("note") or step.get("text") or step.get("type") if isinstance(step, dict) else None
        try:
            outcome = check(step, current, ctx, registry, depth + 1)
        except BadParams as exc:
            raise BadParams(f"chain step {i}: {exc}") from None
        except CheckUnavailable as exc:
            raise CheckUnavailable(f"chain step {i}: {exc}") from None
        notes.append(f"step {i} ({label}): {outcome.note}")
        if not outcome.ok:
            return Outcome(False, "Chain stopped; " + " -> ".join(notes), outcome.output, outcome.score)
        if outcome.output is not None:
            current = outcome.output
    return Outcome(True, "Chain passed; " + " -> ".join(notes), current, outcome.score)


def _weight(point: Any) -> tuple[float, str | None]:
    """The point's weight (default 1) and, when it is unusable, the problem."""
    if not isinstance(point, dict) or "weight" not in point:
        return 1.0, None
    w = point["weight"]
    if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
        return 1.0, f"weight must be a non-negative number, got {w!r}"
    return float(w), None


def _text(point: Any, index: int) -> str:
    if isinstance(point, dict):
        for key in ("text", "id", "type"):
            if isinstance(point.get(key), str) and point[key]:
                return point[key]
    return f"point {index}"


def evaluate_answer(
    answer: Any,
    evaluation_points: Any,
    ctx: EvalContext | None = None,
    registry: ValidatorRegistry | None = None,
) -> tuple[float, Details]:
    """Score = passed weight / total weight, in [0, 1]; details hold one result per point. Never raises."""
    ctx = ctx or EvalContext()
    registry = registry or shared_validators()
    if not isinstance(evaluation_points, (list, tuple)):
        evaluation_points = [evaluation_points]
    passed = total = 0.0
    by_id: dict[str, bool] = {}
    details: Details = []
    for index, point in enumerate(evaluation_points, 1):
        weight, weight_problem = _weight(point)
        total += weight
        skipped_by = _unmet_dependency(point, by_id)
        if weight_problem:
            result: dict[str, Any] = {"ok": False, "note": f"Bad params: {weight_problem}", "duration_ms": 0.0,
                                      "error": True}
        elif skipped_by is not None:
            result = {"ok": False, "note": f"Skipped; dependency '{skipped_by}' did not pass.",
                      "duration_ms": 0.0, "skipped": True}
        else:
            result = run_evaluation_point(point, answer, ctx, registry)
        if result["ok"]:
            passed += weight
        entry: dict[str, Any] = {"point": _text(point, index)}
        if isinstance(point, dict):
            for key in ("id", "type", "metric"):
                if isinstance(point.get(key), str):
                    entry[key] = point[key]
            if isinstance(point.get("id"), str):
                by_id[point["id"]] = bool(result["ok"])
        entry["weight"] = weight
        entry.update(result)
        details.append(entry)
    score = passed / total if total > 0 else 0.0
    return min(1.0, max(0.0, score)), details


def _unmet_dependency(point: Any, by_id: dict[str, bool]) -> str | None:
    """The first dependency (an id, or a list of ids, of earlier points) that did not pass."""
    if not isinstance(point, dict) or point.get("depends_on") in (None, "", []):
        return None
    deps = point["depends_on"]
    deps = [deps] if not isinstance(deps, list) else deps
    for dep in deps:
        if not isinstance(dep, str) or not by_id.get(dep, False):
            return str(dep)
    return None


def metrics(details: Details) -> dict[str, float]:
    """Named metrics: for each `metric` name, passed weight / total weight of its points."""
    totals: dict[str, list[float]] = {}
    for d in details:
        name = d.get("metric")
        if not name:
            continue
        acc = totals.setdefault(name, [0.0, 0.0])
        acc[1] += d.get("weight", 1.0)
        if d.get("ok"):
            acc[0] += d.get("weight", 1.0)
    return {name: (p / t if t > 0 else 0.0) for name, (p, t) in sorted(totals.items())}
