"""A run's status: succeeded only when every clause was served by a succeeded step."""

from __future__ import annotations

from planexec.models import Plan, PlanStep, StepResult
from planexec.records import ReplanRecord
from planexec.status import recovered_steps, run_status, unserved_clauses


def step(num: int, serves: str = "") -> PlanStep:
    return PlanStep(num, f"step {num}", ("t",), serves=serves)


def result(s: PlanStep, status: str) -> StepResult:
    return StepResult(s, status)  # type: ignore[arg-type]


def test_every_clause_served_is_success_and_a_failed_serving_step_is_partial() -> None:
    a, b = step(1, "count the cells"), step(2, "detect events; plot them")
    plan = Plan((a, b))
    assert run_status(plan, [result(a, "succeeded"), result(b, "succeeded")], []) == "succeeded"
    steps = [result(a, "succeeded"), result(b, "failed")]
    assert unserved_clauses(plan, steps) == ["detect events", "plot them"]
    assert run_status(plan, steps, []) == "partial"
    assert run_status(plan, [result(a, "failed"), result(b, "failed")], []) == "failed"


def test_a_failed_step_counts_as_recovered_only_through_a_substitute_that_passed_coverage() -> None:
    a, b, c = step(1), step(2), step(3)
    plan = Plan((a, b, c))
    steps = [result(a, "succeeded"), result(b, "failed"), result(c, "succeeded")]
    unchecked = [ReplanRecord(2, "", new_steps=(c,))]
    assert recovered_steps(steps, unchecked) == set()
    assert run_status(plan, steps, unchecked) == "partial"
    checked = [ReplanRecord(2, "", new_steps=(c,), substitutes=(3,))]
    assert run_status(plan, steps, checked) == "succeeded"


def test_a_substitute_that_failed_and_was_replaced_again_still_recovers_the_first() -> None:
    a, b, c, d = step(1), step(2), step(3), step(4)
    steps = [result(a, "succeeded"), result(b, "failed"), result(c, "failed"), result(d, "succeeded")]
    replans = [ReplanRecord(2, "", new_steps=(c,), substitutes=(3,)),
               ReplanRecord(3, "", new_steps=(d,), substitutes=(4,))]
    assert recovered_steps(steps, replans) == {2, 3}
    assert run_status(Plan((a, b, c, d)), steps, replans) == "succeeded"
