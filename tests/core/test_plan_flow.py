"""Variable-flow validation: every declared input exists when its step runs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec import Config, Orchestrator, Plan, PlanStep, PlanValidationError
from planexec.llm import ScriptedLLM
from planexec.tools import ToolOutput, ToolRegistry, tool


def _step(num: int, deps: tuple[int, ...] = (), inputs: tuple[str, ...] = (), outputs: tuple[str, ...] = (),
          tool_name: str = "make") -> PlanStep:
    return PlanStep(num, f"step {num}", (tool_name,), depends_on=deps, inputs=inputs, outputs=outputs)


def test_input_from_a_step_not_upstream_is_a_race() -> None:
    plan = Plan((_step(1, outputs=("a",)), _step(2, inputs=("a",)), _step(3, deps=(1,), inputs=("a",))))
    (problem,) = plan.flow_problems()
    assert problem == "step 2 needs a, made by step 1, but does not depend on it; add 1 to its depends_on"


def test_transitive_dependencies_and_run_inputs_count() -> None:
    plan = Plan((_step(1, inputs=("images",), outputs=("a",)), _step(2, deps=(1,), outputs=("b",)),
                 _step(3, deps=(2,), inputs=("a", "b"))))
    assert plan.flow_problems(available={"images"}) == []
    assert plan.flow_problems(available=set(), variable_tools={"make"}) == [
        "step 1 needs images, which no step produces and the run was not given"]


def test_unproduced_inputs_matter_only_for_variable_tools() -> None:
    plan = Plan((_step(1, inputs=("sales table",)),))
    assert plan.flow_problems() == []
    assert plan.flow_problems(variable_tools={"make"}) != []


@given(st.lists(st.tuples(st.sets(st.integers(0, 5), max_size=3), st.sets(st.sampled_from("abcd"), max_size=2),
                          st.sets(st.sampled_from("abcd"), max_size=2)), min_size=1, max_size=6))
def test_flow_check_agrees_with_a_simulated_run(spec: list) -> None:
    """A plan passes the check exactly when running its steps in dependency order never misses an input."""
    steps = []
    for i, (deps, ins, outs) in enumerate(spec, start=1):
        steps.append(_step(i, tuple(sorted(d for d in deps if 0 < d < i)), tuple(sorted(ins)), tuple(sorted(outs))))
    plan = Plan(tuple(steps))
    # simulate the worst parallel schedule: a step sees only what its upstream steps made
    ok = True
    for s in steps:
        upstream, todo = set(), list(s.depends_on)
        while todo:
            n = todo.pop()
            if n not in upstream:
                upstream.add(n)
                todo.extend(plan.step(n).depends_on)
        made = set().union(*(plan.step(n).outputs for n in upstream)) if upstream else set()
        ok &= set(s.inputs) <= made
    assert (plan.flow_problems(variable_tools={"make"}) == []) == ok


@tool(type="code")
def make(ctx=None) -> ToolOutput:  # noqa: ANN001 - the tool receives its context
    """Make a value."""
    return ToolOutput({"a": 1}, results={"a": 1})


def test_a_callers_plan_with_a_race_is_refused_before_anything_runs() -> None:
    plan = Plan((_step(1, outputs=("a",)), _step(2, inputs=("a",))))
    orch = Orchestrator(tools=ToolRegistry([make]), config=Config.from_env(embedder="none", rag=False, write_outputs=False))
    with pytest.raises(PlanValidationError, match="add 1 to its depends_on"):
        orch.run("x", plan=plan)


def test_an_llm_plan_with_a_flow_problem_is_asked_again() -> None:
    bad = {"steps": [{"step_num": 1, "goal": "a", "primary_tools": ["make"], "outputs": ["a"]},
                     {"step_num": 2, "goal": "b", "primary_tools": ["make"], "inputs": ["a"]}]}
    good = {"steps": [bad["steps"][0], {**bad["steps"][1], "depends_on": [1]}]}
    llm = ScriptedLLM([json.dumps(bad), json.dumps(good), "done"])
    orch = Orchestrator(llm=llm, tools=ToolRegistry([make]),
                        config=Config.from_env(embedder="none", rag=False, write_outputs=False))
    result = orch.run("make a then b")
    assert result.status == "succeeded" and result.plan.steps[1].depends_on == (1,)
    assert "add 1 to its depends_on" in llm.calls[1]["messages"][-1].content
