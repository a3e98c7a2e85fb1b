"""Integration through Orchestrator().run() with a caller-supplied plan and no LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planexec import Orchestrator, RunResult
from planexec.errors import InputError, PlanexecError, PlanValidationError
from planexec.events import Event
from planexec.report_json import load_report
from tests.core.helpers import Counter, fast_config, plan, step, toolbox


def run(p, counter: Counter | None = None, request: str = "test request", **config):
    orch = Orchestrator(None, toolbox(counter), fast_config(**config))
    return orch.run(request, plan=p)


def test_fallback_after_a_raising_primary_succeeds_with_both_attempts() -> None:
    result = run(plan(step(1, "broken", fallback=("steady",))))
    s = result.step_result(1)
    assert result.status == "succeeded" and s.status == "succeeded"
    assert [a.tool for a in s.attempts] == ["broken", "steady"]
    first, second = s.attempts
    assert not first.ok and "RuntimeError: backend is down" in first.error
    assert first.verdict is not None and first.verdict.decided_by == "exception"
    assert second.ok and second.error is None and second.output == {"answer": 42}
    assert s.tool == "steady" and s.output == {"answer": 42}
    assert s.evaluation is not None and any("broken failed" in c for c in s.evaluation.concerns)


def test_a_tool_reporting_failure_is_an_attempt_not_a_crash() -> None:
    result = run(plan(step(1, "refuses", fallback=("steady",))))
    first = result.step_result(1).attempts[0]
    assert not first.ok and first.error == "refused politely" and first.verdict.decided_by == "tool"
    assert result.status == "succeeded"


def test_ten_thousand_values_come_back_whole(tmp_path: Path) -> None:
    result = run(plan(step(1, "big")))
    values = result.step_result(1).output["values"]
    assert len(values) == 10_000 and values[-1] == 9999 * 0.5
    assert result.step_result(1).summary == "10000 values"
    assert result.results["n_values"] == 10_000

    again = RunResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.step_result(1).output["values"] == values
    assert again.step_result(1).attempts[0].output["values"] == values
    assert again.to_dict() == result.to_dict()

    # report.json keeps large arrays in arrays/*.npy by reference; load_report puts them back whole
    path = Path(result.output_dir) / "report.json"
    raw = json.loads(path.read_text())
    ref = raw["steps"][0]["output"]["values"]
    assert ref["shape"] == [10_000] and (path.parent / ref["$npy"]).is_file()
    report = load_report(path)
    assert report["steps"][0]["output"]["values"] == values
    assert report["status"] == "succeeded" and path.stat().st_size < 50_000


def test_a_failing_independent_step_leaves_later_steps_running() -> None:
    counter = Counter()
    p = plan(step(1, "steady"), step(2, "broken"), step(3, "publish"), step(4, "double", deps=(3,)))
    result = run(p, counter)
    assert result.status == "partial"
    assert [s.status for s in result.steps] == ["succeeded", "failed", "succeeded", "succeeded"]
    assert counter.calls["publish"] == 1 and counter.calls["double"] == 1
    assert "Partial result: 1 step(s) failed" in result.answer


def test_a_step_after_a_failed_dependency_is_skipped_not_run() -> None:
    counter = Counter()
    result = run(plan(step(1, "broken"), step(2, "steady", deps=(1,)), step(3, "publish")), counter)
    assert [s.status for s in result.steps] == ["failed", "skipped", "succeeded"]
    assert "steady" not in counter.calls
    assert result.status == "partial"


def test_circuit_breaker_aborts_after_three_consecutive_errors() -> None:
    counter = Counter()
    p = plan(step(1, "broken"), step(2, "refuses"), step(3, "broken"), step(4, "steady"), step(5, "steady"))
    result = run(p, counter)
    assert result.status == "aborted"
    assert "steady" not in counter.calls  # later steps never ran
    assert counter.calls == {"broken": 2, "refuses": 1}
    assert any("circuit breaker: 3 consecutive tool errors" in e for e in result.errors)
    assert [e["status"] for e in result.execution_sequence] == ["error"] * 3
    assert {4, 5}.isdisjoint(s.step.step_num for s in result.steps)
    # the attempt that tripped the breaker is kept, with its step
    tripped = result.step_result(3)
    assert tripped.status == "failed" and tripped.attempts[0].error == "RuntimeError: backend is down"
    assert "circuit breaker" in tripped.summary


def test_breaker_counts_errors_inside_one_step_and_is_configurable() -> None:
    p = plan(step(1, "broken", "refuses", fallback=("broken",)), step(2, "steady"))
    # tools() drops the fallback that repeats a primary, so only two errors happen here
    assert run(p).status == "partial"
    p3 = plan(step(1, "broken", "refuses", "second_time_lucky", fallback=("steady",)), step(2, "steady"))
    assert run(p3).status == "aborted"
    assert run(p3, max_consecutive_errors=0).status == "succeeded"  # 0 turns the breaker off


def test_a_success_resets_the_breaker() -> None:
    p = plan(step(1, "broken"), step(2, "broken"), step(3, "steady"), step(4, "broken"), step(5, "refuses"))
    result = run(p)
    assert result.status == "partial"
    assert len(result.steps) == 5


def test_auto_fix_marks_a_tool_that_failed_then_succeeded() -> None:
    p = plan(step(1, "second_time_lucky"), step(2, "second_time_lucky"), step(3, "steady"))
    result = run(p)
    seq = result.execution_sequence
    assert [(e["step"], e["tool"], e["status"], e["auto_fixed"]) for e in seq] == [
        (1, "second_time_lucky", "error", False),
        (2, "second_time_lucky", "success", True),
        (3, "steady", "success", False),
    ]
    assert result.step_result(2).attempts[0].auto_fixed
    assert not result.step_result(3).attempts[0].auto_fixed


def test_a_different_tool_succeeding_is_not_an_auto_fix() -> None:
    result = run(plan(step(1, "broken", fallback=("steady",))))
    assert [e["auto_fixed"] for e in result.execution_sequence] == [False, False]


def test_state_from_one_tool_is_visible_to_later_tools_and_results_merge() -> None:
    p = plan(step(1, "refuses", fallback=("publish",), args={"x": 7}), step(2, "double", deps=(1,)))
    result = run(p)
    assert result.status == "succeeded"
    assert result.step_result(2).output == 14
    assert result.results == {"x_published": 7, "doubled": 14, "saw_leak": False}
    assert result.step_result(2).attempts[0].output == 14


def test_state_of_a_failed_output_is_not_applied() -> None:
    p = plan(step(1, "refuses", fallback=("publish",)), step(2, "double", deps=(1,)))
    result = run(p)
    assert result.step_result(2).ok
    assert result.results == {"x_published": 5, "doubled": 10, "saw_leak": False}


def test_events_arrive_in_order_for_subscribers() -> None:
    events: list[Event] = []
    orch = Orchestrator(None, toolbox(), fast_config())
    orch.run("r", plan=plan(step(1, "broken", fallback=("steady",))), on_event=events.append)
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.index("plan_created") < kinds.index("step_started") < kinds.index("step_finished")
    attempts = [e for e in events if e.kind == "attempt_finished"]
    assert [(a.tool, a.ok) for a in attempts] == [("broken", False), ("steady", True)]


def test_reports_and_log_are_written() -> None:
    result = run(plan(step(1, "steady"), step(2, "broken")))
    out = Path(result.output_dir)
    md = (out / "report.md").read_text()
    assert "**Status:** partial" in md and "| 2 |" in md and "backend is down" in md
    log = (out / "run.log").read_text()
    assert "plan_created" in log and "run_finished" in log
    assert RunResult.from_dict(json.loads((out / "report.json").read_text())).status == "partial"


def test_no_outputs_written_when_disabled() -> None:
    result = run(plan(step(1, "steady")), write_outputs=False)
    assert result.output_dir is None and result.ok


def test_with_no_llm_a_run_is_deterministic() -> None:
    p = plan(step(1, "steady"), step(2, "broken"), step(3, "publish"))
    a, b = run(p), run(p)
    strip = ("timings", "output_dir", "steps", "execution_sequence")
    da, db = a.to_dict(), b.to_dict()
    assert {k: v for k, v in da.items() if k not in strip} == {k: v for k, v in db.items() if k not in strip}
    assert [s.status for s in a.steps] == [s.status for s in b.steps]


def test_parallel_independent_steps_all_finish() -> None:
    p = plan(*(step(i, "steady") for i in range(1, 9)), step(9, "publish", deps=tuple(range(1, 9))))
    result = run(p, max_parallel=4)
    assert result.status == "succeeded" and len(result.steps) == 9
    assert [s.step.step_num for s in result.steps] == list(range(1, 10))


def test_an_invalid_caller_plan_is_a_usage_error() -> None:
    with pytest.raises(PlanValidationError, match="unknown tool"):
        run(plan(step(1, "nope")))
    with pytest.raises(PlanValidationError, match="dependency cycle"):
        run(plan(step(1, "steady", deps=(2,)), step(2, "steady", deps=(1,))))


def test_bad_inputs_and_empty_requests_fail_before_running(tmp_path: Path) -> None:
    orch = Orchestrator(None, toolbox(), fast_config())
    with pytest.raises(InputError, match="file not found"):
        orch.run("r", plan=plan(step(1, "steady")), files=[tmp_path / "missing.csv"])
    with pytest.raises(PlanexecError, match="request is empty"):
        orch.run("  ", plan=plan(step(1, "steady")))


def test_plan_rejected_by_the_approver() -> None:
    orch = Orchestrator(None, toolbox(), fast_config())
    result = orch.run("r", plan=plan(step(1, "steady")), approve_plan=lambda p: None)
    assert result.status == "rejected" and result.steps == []


def test_tool_needing_approval_is_refused_when_denied() -> None:
    from planexec.tools import tool

    @tool(requires_approval=True)
    def risky() -> str:
        """Needs a yes."""
        return "done"

    reg = toolbox()
    reg.register(risky)
    orch = Orchestrator(None, reg, fast_config())
    denied = orch.run("r", plan=plan(step(1, "risky", fallback=("steady",))), approve_tool=lambda n, a: False)
    assert denied.step_result(1).attempts[0].error.startswith("risky was not approved to run")
    assert denied.step_result(1).tool == "steady"
    allowed = orch.run("r", plan=plan(step(1, "risky")), approve_tool=lambda n, a: True)
    assert allowed.step_result(1).output == "done"


def test_a_tool_needing_approval_never_runs_without_an_approver() -> None:
    from planexec.tools import tool

    ran: list[str] = []

    @tool(requires_approval=True)
    def risky() -> str:
        """Needs a yes."""
        ran.append("risky")
        return "done"

    reg = toolbox()
    reg.register(risky)
    result = Orchestrator(None, reg, fast_config()).run("r", plan=plan(step(1, "risky", fallback=("steady",))))
    assert ran == [] and "requires approval" in result.step_result(1).attempts[0].error
