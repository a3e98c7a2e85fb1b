"""The `python` validator: an expression or a `check(answer)` function, run in planexec's sandbox."""

from __future__ import annotations

import math
from typing import Any

from planexec.evals.base import (
    BadParams,
    CheckUnavailable,
    EvalContext,
    Outcome,
    ValidatorSet,
    need,
    opt_number,
)
from planexec.serialize import to_jsonable

VALIDATORS = ValidatorSet()


def wrap(code: str) -> str:
    """Program text that leaves the check's value in `results["result"]` (the sandbox's convention).

    A single expression over `answer` becomes its value; a block must define `check(answer)`
    or assign `result` itself.
    """
    stripped = code.strip()
    try:
        compile(stripped, "<check>", "eval")
    except SyntaxError:
        pass
    else:
        return f"results = {{'result': ({stripped})}}\n"
    try:
        compile(stripped, "<check>", "exec")
    except SyntaxError as exc:
        raise BadParams(f"params.code is not valid Python: {exc.msg} (line {exc.lineno})") from None
    if "def check" in stripped:
        return stripped + "\nresults = {'result': check(answer)}\n"
    if "result" not in stripped:
        raise BadParams("params.code is a block: define check(answer) or assign result")
    return stripped + "\nresults = {'result': result}\n"


def interpret(value: Any, threshold: float) -> tuple[bool, str, float | None]:
    """A check's value as (ok, reason, score): bool, number (score), [ok, reason] or {pass, score, reason}."""
    if isinstance(value, bool):
        return value, "", None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value >= threshold, f"score {value:g} vs threshold {threshold:g}", float(value)
    if isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[0], bool):
        return value[0], str(value[1]), None
    if isinstance(value, dict) and isinstance(value.get("pass"), bool):
        score = value.get("score")
        return value["pass"], str(value.get("reason", "")), float(score) if isinstance(score, (int, float)) else None
    raise ValueError(f"the check returned {value!r}; return a bool, a number, [ok, reason] or "
                     "{'pass': ..., 'reason': ...}")


@VALIDATORS("python", params=("code", "threshold"), deterministic=False)
def python(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when the Python expression (or check(answer)) over the answer, run in the sandbox, is true.

    The code sees `answer` and, inside a suite, the run's key figures as `run_results`.
    """
    program = wrap(need(params, "code", str, "a Python expression over `answer`, or def check(answer)"))
    threshold = opt_number(params, "threshold", 0.5)
    assert threshold is not None
    try:
        from planexec.sandbox import Sandbox
    except ImportError as exc:
        raise CheckUnavailable(f"the python validator needs planexec.sandbox.Sandbox: {exc}") from None
    inputs = {"answer": to_jsonable(answer)}
    if ctx.run is not None:
        inputs["run_results"] = to_jsonable(ctx.run_results())
    execution = Sandbox().run(program, inputs=inputs)
    if not execution.ok:
        raise CheckUnavailable(f"the check raised: {execution.error}")
    results = execution.results or {}
    if "result" not in results:
        raise CheckUnavailable("the check left no `result` (define check(answer) or assign result)")
    try:
        ok, reason, score = interpret(results["result"], threshold)
    except ValueError as exc:
        raise CheckUnavailable(str(exc)) from None
    note = f"Check {'passed' if ok else 'failed'}" + (f": {reason}" if reason else ".")
    return Outcome(ok, note, output=results["result"], score=score)
