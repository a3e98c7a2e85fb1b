"""Bounded replanning: a failed step asks the planner for the remaining work, at most max_replans times."""

from __future__ import annotations

import json
import threading
from typing import Any

from planexec import Orchestrator
from planexec.evaluator import default_evaluators
from planexec.inputs import HeuristicInputGenerator
from planexec.llm.fakes import ScriptedLLM
from planexec.models import RunResult
from planexec.orchestrator import Components
from planexec.planner_heuristic import HeuristicPlanner
from planexec.planner_llm import LLMPlanner
from planexec.similarity import KeywordScorer
from planexec.synthesis import TemplateSynthesizer
from planexec.tools import ToolOutput, ToolRegistry, tool
from planexec.verifier import StepVerifier
from tests.orchestration.helpers import Calls, Recorder, config, nap_tools


def plan_json(*steps: dict[str, Any]) -> str:
    return json.dumps({"rationale": "scripted", "steps": list(steps)})


def llm_parts(llm: ScriptedLLM) -> Components:
    """An LLM planner (scripted) with the offline input generator, verifier and synthesiser."""
    return Components(LLMPlanner(llm), HeuristicInputGenerator(), StepVerifier(), default_evaluators(),
                      TemplateSynthesizer())


FIRST = plan_json(
    {"step_num": 1, "goal": "warm up", "primary_tools": ["nap"], "args": {"name": "warm"}},
    {"step_num": 2, "goal": "fetch the data", "primary_tools": ["fail"], "depends_on": [1], "args": {"name": "feed"}},
    {"step_num": 3, "goal": "use the data", "primary_tools": ["nap"], "depends_on": [2], "args": {"name": "use"}},
)
REVISED = plan_json(
    {"step_num": 1, "goal": "fetch the data another way", "primary_tools": ["fetch_mirror"], "args": {"name": "fetched"}},
    {"step_num": 2, "goal": "use the data", "primary_tools": ["nap"], "depends_on": [1], "args": {"name": "use"}},
)
FAILS_AGAIN = plan_json(
    {"step_num": 1, "goal": "fetch the data yet another way", "primary_tools": ["fetch_backup"], "args": {"name": "again"}},
)


def replan_tools(calls: Calls) -> ToolRegistry:
    """`nap` and `fail`, plus tools whose descriptions serve "fetch the data" (one works, one raises)."""
    registry = nap_tools(calls)

    @tool(type="data")
    def fetch_mirror(name: str) -> ToolOutput:
        """Fetch the data from a mirror, then publish len(name) under the name."""
        calls.enter(name)
        calls.leave()
        return ToolOutput({"name": name}, summary=f"fetched {name}", results={name: len(name)})

    @tool(type="data")
    def fetch_backup(name: str = "") -> str:
        """Fetch the data from the backup server (which is down: always raises)."""
        calls.enter(f"fail:{name}")
        calls.leave()
        raise RuntimeError(f"{name} is broken")

    registry.register(fetch_mirror)
    registry.register(fetch_backup)
    return registry


def run_scripted(outputs: list[str], max_replans: int, rec: Recorder | None = None,
                 calls: Calls | None = None) -> tuple[RunResult, ScriptedLLM]:
    llm = ScriptedLLM(outputs)
    orch = Orchestrator(tools=replan_tools(calls or Calls()), config=config(max_replans=max_replans),
                        components=llm_parts(llm))
    return orch.run("fetch the data and use it", on_event=rec), llm


def test_scripted_replan_recovers_with_a_working_tool() -> None:
    rec, calls = Recorder(), Calls()
    result, llm = run_scripted([FIRST, REVISED], max_replans=1, rec=rec, calls=calls)
    assert result.status == "succeeded", (result.errors, [(s.step.step_num, s.status) for s in result.steps])
    assert result.results == {"warm": 4, "fetched": 7, "use": 3}
    assert [(s.step.step_num, s.status) for s in result.steps] == [(1, "succeeded"), (2, "failed"),
                                                                   (4, "succeeded"), (5, "succeeded")]
    assert [s.step_num for s in result.plan.steps] == [1, 2, 4, 5]
    assert result.plan.step(5).depends_on == (4,)
    assert len(result.replans) == 1 and result.replans[0]["failed_step"] == 2
    assert "fail" in result.replans[0]["avoid"]
    (event,) = rec.of("replanned")
    assert event.failed_step == 2 and "feed is broken" in event.reason
    # the planner was told what succeeded and what failed
    prompt = llm.calls[1]["messages"][-1].content
    assert "warm up" in prompt and "step 2 (fetch the data) failed" in prompt
    assert calls.count["use"] == 1, "the old step 3 never ran; its replacement did"
    assert result.replans[0]["substitutes"] == [4]


def test_a_substitute_that_does_something_else_is_not_taken() -> None:
    """A replacement whose tool does not serve the failed step's goal leaves the step failed: partial, with why."""
    unrelated = plan_json(
        {"step_num": 1, "goal": "fetch the data another way", "primary_tools": ["nap"], "args": {"name": "nap"}},
    )
    result, llm = run_scripted([FIRST, unrelated], max_replans=1)
    assert len(llm.calls) == 2
    assert result.status == "partial"
    assert "new_steps" not in result.replans[0]
    assert 'coverage decision for "fetch the data"' in result.replans[0]["rejected"]
    assert [(s.step.step_num, s.status) for s in result.steps] == [(1, "succeeded"), (2, "failed"), (3, "skipped")]


def test_no_replan_when_max_replans_is_zero() -> None:
    rec = Recorder()
    result, llm = run_scripted([FIRST, REVISED], max_replans=0, rec=rec)
    assert len(llm.calls) == 1
    assert result.replans == [] and rec.of("replanned") == []
    assert [s.status for s in result.steps] == ["succeeded", "failed", "skipped"]
    assert result.status == "partial"


def test_at_most_one_replan_when_max_replans_is_one() -> None:
    rec = Recorder()
    result, llm = run_scripted([FIRST, FAILS_AGAIN], max_replans=1, rec=rec)
    assert len(llm.calls) == 2, "the second failure did not ask the planner again"
    assert len(result.replans) == 1 and len(rec.of("replanned")) == 1
    assert [(s.step.step_num, s.status) for s in result.steps] == [(1, "succeeded"), (2, "failed"), (4, "failed")]
    assert result.status == "partial"


def test_two_replans_allowed_when_configured() -> None:
    result, llm = run_scripted([FIRST, FAILS_AGAIN, REVISED], max_replans=2)
    assert len(llm.calls) == 3 and len(result.replans) == 2
    assert result.status == "succeeded"
    assert result.results["use"] == 3


def test_a_planner_error_during_replan_is_recorded_and_the_run_finishes() -> None:
    bad = plan_json({"step_num": 1, "goal": "x", "primary_tools": ["no_such_tool"]})
    result, llm = run_scripted([FIRST, bad, bad], max_replans=1)
    assert len(result.replans) == 1 and "error" in result.replans[0]
    assert "no_such_tool" in result.replans[0]["error"]
    assert result.status == "partial"


# -- the offline heuristic planner --------------------------------------------------------


def heuristic_tools(calls: Calls) -> ToolRegistry:
    """Two tools that can compute a mean; the better-described one is broken."""

    @tool(type="data", produces=("numbers",))
    def load_numbers() -> ToolOutput:
        """Load the numbers."""
        calls.enter("load_numbers")
        calls.leave()
        return ToolOutput([1.0, 2.0, 6.0], state={"numbers": [1.0, 2.0, 6.0]})

    @tool(type="statistics", consumes=("numbers",), produces=("mean",))
    def fast_mean(ctx: Any) -> ToolOutput:
        """Compute the mean of the numbers quickly."""
        calls.enter("fast_mean")
        calls.leave()
        raise ConnectionError("the fast mean service is down")

    @tool(type="statistics", consumes=("numbers",), produces=("mean",))
    def careful_average(ctx: Any) -> ToolOutput:
        """Compute the average of numbers, carefully."""
        calls.enter("careful_average")
        calls.leave()
        values = ctx.state["numbers"]
        return ToolOutput(sum(values) / len(values), state={"mean": 3.0}, results={"mean": sum(values) / len(values)})

    return ToolRegistry([load_numbers, fast_mean, careful_average])


def test_heuristic_planner_replans_around_the_failed_action() -> None:
    calls, rec = Calls(), Recorder()
    parts = Components(HeuristicPlanner(KeywordScorer()), HeuristicInputGenerator(), StepVerifier(),
                       default_evaluators(), TemplateSynthesizer())
    orch = Orchestrator(tools=heuristic_tools(calls), config=config(max_replans=1), components=parts)
    result = orch.run("load the numbers, then compute the mean of the numbers", on_event=rec)
    first = rec.of("plan_created")[0].plan.to_dict()
    assert [s["primary_tools"] for s in first["steps"]] == [["load_numbers"], ["fast_mean"]]
    assert result.status == "succeeded", result.errors
    assert result.results == {"mean": 3.0}
    assert calls.count == {"load_numbers": 1, "fast_mean": 1, "careful_average": 1}, \
        "the finished load step was not repeated"
    new = result.replans[0]["new_steps"]
    assert [s["primary_tools"] for s in new] == [["careful_average"]]
    assert new[0]["depends_on"] == [1], "the new step depends on the finished load step"


def test_replan_keeps_a_step_that_is_still_running() -> None:
    """In a parallel run, a slow independent step in flight during the replan is kept and recorded."""
    started = threading.Event()
    release = threading.Event()

    @tool(type="data")
    def slow(name: str) -> ToolOutput:
        """Wait until released."""
        started.set()
        release.wait(10)
        return ToolOutput({"name": name}, results={name: 1})

    @tool(type="data")
    def broken(name: str) -> str:
        """Fail once the slow step is running, then let it go after the replan."""
        started.wait(10)
        raise RuntimeError("broken")

    @tool(type="data")
    def fixed(name: str) -> ToolOutput:
        """Does the flaky part another way (works); lets the slow step finish."""
        release.set()
        return ToolOutput({"name": name}, results={name: 2})

    first = plan_json({"step_num": 1, "goal": "slow part", "primary_tools": ["slow"], "args": {"name": "s"}},
                      {"step_num": 2, "goal": "flaky part", "primary_tools": ["broken"], "args": {"name": "b"}})
    second = plan_json({"step_num": 1, "goal": "fixed part", "primary_tools": ["fixed"], "args": {"name": "f"}})
    llm = ScriptedLLM([first, second])
    orch = Orchestrator(tools=ToolRegistry([slow, broken, fixed]), config=config(max_replans=1, max_parallel=4),
                        components=llm_parts(llm))
    result = orch.run("do both parts")
    assert [s.step_num for s in result.plan.steps] == [1, 2, 3]
    assert [(s.step.step_num, s.status) for s in result.steps] == [(1, "succeeded"), (2, "failed"), (3, "succeeded")]
    assert result.results == {"s": 1, "f": 2}
    assert result.status == "succeeded"
