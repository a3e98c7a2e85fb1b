"""Plans, steps, attempts and results: validation, JSON round trips, and random plans (hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planexec.errors import PlanValidationError, UsageError
from planexec.models import (
    Evaluation,
    Plan,
    PlanStep,
    RunResult,
    StepResult,
    ToolAttempt,
    Usage,
    Verdict,
)
from tests.core.helpers import plan, step

TOOLS = {"a", "b", "c"}


def test_plan_from_the_seed_list_format() -> None:
    p = Plan.from_dict([
        {"step_num": 1, "goal": "Load sales.csv", "primary_tools": ["python_coder"],
         "fallback_tools": ["python_code"], "success_criteria": "CSV loaded"},
        {"step_num": 2, "goal": "Average revenue", "primary_tools": "python_code", "depends_on": [1]},
    ])
    assert p.step(2).primary_tools == ("python_code",) and p.step(2).depends_on == (1,)
    assert p.step(1).tools == ("python_coder", "python_code")
    assert Plan.from_dict(p.to_dict()) == p


def test_tools_lists_primary_then_new_fallbacks() -> None:
    assert step(1, "a", "b", fallback=("b", "c")).tools == ("a", "b", "c")


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([], "the plan has no steps"),
        ([step(1, "a"), step(1, "b")], "duplicate step numbers: [1]"),
        ([step(1, "a", deps=(3,))], "step 1 depends on step 3, which does not exist"),
        ([step(1, "a", deps=(1,))], "step 1 depends on itself"),
        ([step(1, "zz")], "step 1 uses unknown tool(s) ['zz']; known tools: ['a', 'b', 'c']"),
        ([PlanStep(1, "  ", ("a",))], "step 1 has an empty goal"),
        ([PlanStep(1, "g", ())], "step 1 names no tool"),
        ([step(1, "a", deps=(2,)), step(2, "b", deps=(1,))], "dependency cycle: 1 -> 2 -> 1"),
    ],
)
def test_each_problem_is_named(steps: list[PlanStep], expected: str) -> None:
    p = Plan(tuple(steps))
    assert expected in p.problems(TOOLS)
    with pytest.raises(PlanValidationError) as info:
        p.validate(TOOLS)
    assert expected in str(info.value) and expected in info.value.problems
    assert isinstance(info.value, UsageError)


def test_a_sound_plan_validates_to_itself() -> None:
    p = plan(step(1, "a"), step(2, "b", deps=(1,)), step(3, "c", deps=(1, 2)))
    assert p.validate(TOOLS) is p and p.find_cycle() is None


@pytest.mark.parametrize(
    "bad",
    [
        {"steps": [{"goal": "g", "primary_tools": ["a"]}]},
        {"steps": [{"step_num": "one", "goal": "g", "primary_tools": ["a"]}]},
        {"steps": [{"step_num": 1.5, "goal": "g", "primary_tools": ["a"]}]},
        {"steps": [{"step_num": 1, "goal": "g", "primary_tools": 5}]},
        {"steps": [{"step_num": 1, "goal": "g", "primary_tools": ["a"], "args": [1, 2]}]},
        {"steps": [{"step_num": 1, "goal": "g", "primary_tools": ["a"], "depends_on": {"x": 1}}]},
        {"steps": ["not a step"]},
        {"plan": []},
        "a string",
    ],
)
def test_malformed_plan_json_is_a_plan_validation_error(bad: Any) -> None:
    with pytest.raises(PlanValidationError):
        Plan.from_dict(bad)


def test_a_single_dependency_number_is_accepted() -> None:
    p = Plan.from_dict([{"step_num": 1, "goal": "g", "primary_tools": ["a"]},
                        {"step_num": 2, "goal": "g", "primary_tools": ["a"], "depends_on": 1}])
    assert p.step(2).depends_on == (1,)
    assert p.step(1).depends_on == ()


# -- hypothesis: random plans ---------------------------------------------------------------

step_nums = st.integers(min_value=1, max_value=8)


@st.composite
def random_plans(draw: st.DrawFn) -> Plan:
    nums = draw(st.lists(step_nums, min_size=0, max_size=7))
    steps = [
        PlanStep(
            n,
            draw(st.sampled_from(["load", "count", " ", "plot it"])),
            tuple(draw(st.lists(st.sampled_from(["a", "b", "c", "zz"]), max_size=2))),
            depends_on=tuple(draw(st.lists(st.integers(0, 10), max_size=3))),
        )
        for n in nums
    ]
    return Plan(tuple(steps))


def _has_cycle(p: Plan) -> bool:
    """Kahn's algorithm over the existing steps, written independently of Plan.find_cycle."""
    nodes = {s.step_num for s in p.steps}
    edges = {n: set() for n in nodes}
    for s in p.steps:
        edges[s.step_num] |= {d for d in s.depends_on if d in nodes}
    indeg = {n: 0 for n in nodes}
    for ds in edges.values():
        for d in ds:
            indeg[d] += 1
    queue = [n for n in nodes if indeg[n] == 0]
    seen = 0
    while queue:
        n = queue.pop()
        seen += 1
        for d in edges[n]:
            indeg[d] -= 1
            if indeg[d] == 0:
                queue.append(d)
    return seen < len(nodes)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_plans())
def test_validation_never_crashes_and_finds_every_cycle_and_dangling_dep(p: Plan) -> None:
    problems = p.problems(TOOLS)
    assert all(isinstance(x, str) and x for x in problems)
    if not p.steps:
        assert problems == ["the plan has no steps"]
        return
    cycle = p.find_cycle()
    assert (cycle is not None) == _has_cycle(p)
    if cycle is not None:
        assert cycle[0] == cycle[-1] and len(cycle) >= 2
        deps = {}
        for s in p.steps:
            deps.setdefault(s.step_num, set()).update(s.depends_on)
        assert all(b in deps[a] for a, b in zip(cycle, cycle[1:], strict=False))
        assert any(x.startswith("dependency cycle:") for x in problems)
    nums = {s.step_num for s in p.steps}
    for s in p.steps:
        for d in s.depends_on:
            if d not in nums:
                assert f"step {s.step_num} depends on step {d}, which does not exist" in problems
    if problems:
        with pytest.raises(PlanValidationError):
            p.validate(TOOLS)
    else:
        assert p.validate(TOOLS) is p


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),  # what JSON can hold
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
step_dicts = st.fixed_dictionaries(
    {},
    optional={
        "step_num": json_values | step_nums,
        "goal": json_values,
        "primary_tools": json_values | st.lists(st.sampled_from(["a", "b"])),
        "fallback_tools": json_values,
        "depends_on": json_values | st.lists(step_nums),
        "args": json_values,
        "success_criteria": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(step_dicts, max_size=4) | json_values)
def test_from_dict_either_builds_a_plan_or_says_what_is_wrong(data: Any) -> None:
    try:
        p = Plan.from_dict(data)
    except PlanValidationError as exc:
        assert str(exc)
        return
    p.problems(TOOLS)  # never crashes on what from_dict accepted
    assert Plan.from_dict(json.loads(json.dumps(p.to_dict()))) == p


# -- results round trip -------------------------------------------------------------------


def _result() -> RunResult:
    s1 = step(1, "a", fallback=("b",), success_criteria="mean_x", outputs=("mean_x",), args={"k": 3})
    failed = ToolAttempt("a", {"k": 3}, False, error="boom", verdict=Verdict(False, "boom", "exception"), duration=0.1)
    won = ToolAttempt("b", {}, True, output={"mean_x": np.float64(2.5), "arr": np.arange(4)}, summary="ok",
                      verdict=Verdict(True, "produced mean_x"), duration=0.2, auto_fixed=True)
    r1 = StepResult(s1, "succeeded", (failed, won), output={"mean_x": 2.5, "grid": np.ones((2, 2))},
                    result_type="structured", summary="ok", evaluation=Evaluation(concerns=("a failed",)), tool="b")
    r2 = StepResult(step(2, "c", deps=(1,)), "skipped", summary="skipped")
    return RunResult("req", plan(s1, r2.step), [r1, r2], "answer", "partial", results={"mean_x": 2.5, "nan": float("nan")},
                     usage=Usage(2, 10, 5, 40), errors=["e"], artifacts=["f.png"], output_dir="/tmp/x",
                     timings={"total": 1.0}, execution_sequence=[{"step": 1, "tool": "a", "status": "error"}])


def test_run_result_round_trips_through_json() -> None:
    d = _result().to_dict()
    text = json.dumps(d)  # numpy values became plain JSON
    again = RunResult.from_dict(json.loads(text))
    assert again.to_dict() == d
    assert again.step_result(1).output["grid"] == [[1.0, 1.0], [1.0, 1.0]]
    assert again.step_result(1).attempts[1].auto_fixed
    assert again.step_result(1).attempts[0].verdict == Verdict(False, "boom", "exception")
    assert again.results["nan"] is None
    assert again.usage == Usage(2, 10, 5, 40)
    assert again.plan == _result().plan
    assert again.status == "partial" and not again.ok


def test_usage_arithmetic() -> None:
    u = Usage(1, 2, 3, 4)
    u.add(Usage(1, 1, 1, 1))
    assert u == Usage(2, 3, 4, 5)
    assert u.minus(Usage(1, 1, 1, 1)) == Usage(1, 2, 3, 4)
    c = u.copy()
    c.add(u)
    assert u == Usage(2, 3, 4, 5)


def test_plan_step_lookup_names_the_steps() -> None:
    with pytest.raises(KeyError, match=r"no step 9 in plan \(steps: \[1\]\)"):
        plan(step(1, "a")).step(9)


def test_user_built_dataclasses_accept_lists_and_store_tuples() -> None:
    """Issue 12 item 7: lists (as JSON plans and most callers write them) are stored as tuples."""
    from planexec.models import Evaluation, StepResult, ToolAttempt
    from planexec.plan import Plan, PlanStep

    step = PlanStep(step_num=1, goal="g", primary_tools=["a"], fallback_tools=["b"], depends_on=[],
                    inputs=["x"], outputs=["y"])
    assert step.tools == ("a", "b") and step.inputs == ("x",) and step.outputs == ("y",) and step.depends_on == ()
    assert Plan([step]).steps == (step,)
    assert PlanStep(2, "g", "a", depends_on=1).primary_tools == ("a",)
    assert PlanStep(2, "g", "a", depends_on=1).depends_on == (1,)
    attempt = ToolAttempt("a", {}, True, artifacts=["f.png"])
    assert attempt.artifacts == ("f.png",)
    assert Evaluation(concerns=["slow"]).concerns == ("slow",)
    assert StepResult(step, "succeeded", attempts=[attempt]).attempts == (attempt,)
    assert PlanStep.from_dict(step.to_dict()) == step
