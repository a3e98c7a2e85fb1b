"""Validators over the agent run itself: latency, cost, tool_used, step_count, status."""

from __future__ import annotations

from typing import Any

from planexec.evals.base import (
    BadParams,
    CheckUnavailable,
    EvalContext,
    Outcome,
    ValidatorSet,
    bounds,
    opt_bool,
    opt_choice,
    opt_number,
    range_text,
    string_list,
    within,
)
from planexec.models import RunResult

VALIDATORS = ValidatorSet()


def _run(ctx: EvalContext, kind: str) -> RunResult:
    if ctx.run is None:
        raise CheckUnavailable(f"{kind} checks a RunResult; evaluate it in a suite or pass EvalContext(run=...)")
    return ctx.run


def run_seconds(run: RunResult, ctx: EvalContext, key: str = "total") -> float | None:
    """The run's duration: `timings[key]`, else the runner's wall clock, else the sum of timings."""
    value = run.timings.get(key)
    if isinstance(value, (int, float)):
        return float(value)
    if key == "total":
        if ctx.elapsed is not None:
            return ctx.elapsed
        if run.timings:
            return float(sum(v for v in run.timings.values() if isinstance(v, (int, float))))
    return None


@VALIDATORS("latency", params=("max_seconds", "key"))
def latency(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the run (or the phase `key` of its timings) took at most `max_seconds`."""
    limit = opt_number(params, "max_seconds")
    if limit is None or limit < 0:
        raise BadParams("latency needs params.max_seconds, a non-negative number")
    key = params.get("key", "total")
    if not isinstance(key, str):
        raise BadParams(f"params.key must name a timing, got {key!r}")
    run = _run(ctx, "latency")
    seconds = run_seconds(run, ctx, key)
    if seconds is None:
        raise CheckUnavailable(f"the run has no timing {key!r} (has: {sorted(run.timings)})")
    ok = seconds <= limit
    return Outcome(ok, f"{key} took {seconds:.3f} s ({'<=' if ok else '>'} {limit:g} s).")


_COST_LIMITS = {
    "max_tokens": lambda u: u.prompt_tokens + u.completion_tokens,
    "max_calls": lambda u: u.calls,
    "max_prompt_tokens": lambda u: u.prompt_tokens,
    "max_completion_tokens": lambda u: u.completion_tokens,
}


@VALIDATORS("cost", params=("max_tokens", "max_calls", "max_usd", "usd_per_1k_prompt", "usd_per_1k_completion"))
def cost(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the run's LLM usage stays under every limit given (tokens, calls, dollars)."""
    limits = {k: opt_number(params, k) for k in (*_COST_LIMITS, "max_usd")}
    limits = {k: v for k, v in limits.items() if v is not None}
    if not limits:
        raise BadParams(f"cost needs at least one of {', '.join((*_COST_LIMITS, 'max_usd'))}")
    usage = _run(ctx, "cost").usage
    parts, ok = [], True
    for name, limit in limits.items():
        if name == "max_usd":
            p_price = opt_number(params, "usd_per_1k_prompt")
            c_price = opt_number(params, "usd_per_1k_completion")
            if p_price is None or c_price is None:
                raise BadParams("max_usd needs params.usd_per_1k_prompt and params.usd_per_1k_completion")
            spent = (usage.prompt_tokens * p_price + usage.completion_tokens * c_price) / 1000
        else:
            spent = _COST_LIMITS[name](usage)
        ok = ok and spent <= limit
        parts.append(f"{name[4:]} {spent:g} {'<=' if spent <= limit else '>'} {limit:g}")
    return Outcome(ok, "; ".join(parts) + ".")


def tools_tried(run: RunResult, succeeded_only: bool) -> list[str]:
    """Tool names of every attempt of every step, in order, without repeats."""
    seen: list[str] = []
    for step in run.steps:
        for attempt in step.attempts:
            if (attempt.ok or not succeeded_only) and attempt.tool not in seen:
                seen.append(attempt.tool)
    return seen


@VALIDATORS("tool_used", params=("tools", "mode", "succeeded"))
def tool_used(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the run tried all (or any) of the named tools; succeeded=true counts successful attempts only."""
    wanted = string_list(params, "tools" if "tools" in params else "tool")
    mode = opt_choice(params, "mode", ("all", "any"))
    used = tools_tried(_run(ctx, "tool_used"), opt_bool(params, "succeeded", False))
    hit = [t for t in wanted if t in used]
    ok = bool(hit) if mode == "any" else len(hit) == len(wanted)
    return Outcome(ok, f"Tools used: {', '.join(used) or 'none'}; wanted {mode} of {', '.join(wanted)}.")


@VALIDATORS("step_count", params=("min", "max"))
def step_count(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the number of plan steps lies within min/max."""
    lo, hi = bounds(params, "the allowed number of plan steps")
    run = _run(ctx, "step_count")
    n = len(run.plan.steps) if run.plan is not None else len(run.steps)
    ok = within(n, lo, hi)
    return Outcome(ok, f"{n} plan step(s), {'within' if ok else 'outside'} {range_text(lo, hi)}.")


@VALIDATORS("status", params=("value",))
def status(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the run's status is one of `value` (default: succeeded)."""
    allowed = string_list(params, "value") if "value" in params else ["succeeded"]
    got = _run(ctx, "status").status
    ok = got in allowed
    return Outcome(ok, f"Run status {got!r} ({'in' if ok else 'not in'} {', '.join(allowed)}).")
