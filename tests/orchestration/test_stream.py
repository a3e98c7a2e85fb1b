"""Orchestrator.iter(): the run's events as they happen, the result at the end, and early closing that cancels."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planexec import Orchestrator, UsageError
from planexec.events import Event, RunFinished, StepFinished, StepStarted
from planexec.models import Plan, RunResult
from planexec.sandbox.inprocess import InProcessSandbox, InProcessSession
from planexec.tools import ToolRegistry, default_registry
from tests.orchestration.helpers import Calls, Recorder, config, nap_tools, plan, step


class KeptSandbox(InProcessSandbox):
    """The in-process fake, keeping the sessions it opened so a test can see them closed."""

    def __init__(self) -> None:
        self.sessions: list[InProcessSession] = []

    def session(self, inputs: dict[str, Any] | None = None) -> InProcessSession:
        self.sessions.append(super().session(inputs))
        return self.sessions[-1]


def new_threads(before: set[threading.Thread]) -> list[str]:
    return [t.name for t in threading.enumerate() if t not in before and t.is_alive()]


def chain(n: int) -> Plan:
    return plan(*(step(i, "nap", args={"name": f"part{i}"}, deps=(i - 1,) if i > 1 else ()) for i in range(1, n + 1)))


def test_iter_yields_what_on_event_sees_and_ends_with_the_result() -> None:
    rec = Recorder()
    ran = Orchestrator(tools=nap_tools(Calls()), config=config()).run("run the parts", plan=chain(3), on_event=rec)
    stream = Orchestrator(tools=nap_tools(Calls()), config=config()).iter("run the parts", plan=chain(3))
    events = list(stream)
    assert [e.kind for e in events] == rec.kinds()
    assert [getattr(e, "step_num", None) for e in events] == [getattr(e, "step_num", None) for e in rec.events]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "succeeded"
    assert stream.result.status == ran.status == "succeeded"
    assert stream.result.results == ran.results == {"part1": 5, "part2": 5, "part3": 5}
    assert stream.result.answer == events[-1].answer


def test_the_exhausting_next_carries_the_result_for_yield_from() -> None:
    def delegate() -> Iterator[Event]:
        result = yield from Orchestrator(tools=nap_tools(Calls()), config=config()).iter("run", plan=chain(2))
        kept.append(result)

    kept: list[RunResult] = []
    kinds = [e.kind for e in delegate()]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert len(kept) == 1 and kept[0].status == "succeeded" and kept[0].results == {"part1": 5, "part2": 5}


def test_parallel_steps_arrive_in_the_order_they_were_emitted() -> None:
    """Events from pool threads reach the stream in the bus's order: the order every subscriber sees."""
    steps = [step(n, "nap", args={"name": f"part{n}"}) for n in range(1, 5)]
    stream = Orchestrator(tools=nap_tools(Calls(), delay=0.05), config=config(max_parallel=4)).iter(
        "run the parts", plan=plan(*steps))
    events = list(stream)
    assert [e.to_dict() for e in events] == stream.result.events
    assert sorted(e.step_num for e in events if isinstance(e, StepFinished)) == [1, 2, 3, 4]


def test_breaking_early_cancels_the_run_closes_its_sandbox_and_leaves_no_thread() -> None:
    before = set(threading.enumerate())
    calls, sandbox = Calls(), KeptSandbox()
    tools = ToolRegistry([*nap_tools(calls), default_registry().get("python_code")])
    first = step(1, "python_code", args={"code": "results = {'x': 1.0}"}, outputs=("x",))
    steps = plan(first, *(step(i, "nap", args={"name": f"part{i}"}, deps=(i - 1,)) for i in (2, 3)))
    seen = []
    for event in Orchestrator(tools=tools, config=config(), sandbox=sandbox).iter("code, then naps", plan=steps):
        seen.append(event.kind)
        if isinstance(event, StepFinished):
            break
    assert seen[-1] == "step_finished" and "run_finished" not in seen
    assert calls.count == {}  # steps 2 and 3 never ran
    assert len(sandbox.sessions) == 1 and sandbox.sessions[0].closed
    assert new_threads(before) == []


def test_closing_while_parallel_steps_wait_stops_them_all_before_any_tool_runs() -> None:
    before = set(threading.enumerate())
    calls = Calls()
    steps = [step(n, "nap", args={"name": f"part{n}"}) for n in range(1, 5)]
    stream = Orchestrator(tools=nap_tools(calls, delay=0.05), config=config(max_parallel=4)).iter(
        "run the parts", plan=plan(*steps))
    with stream:
        for event in stream:
            if isinstance(event, StepStarted):
                break
    assert calls.count == {}
    assert new_threads(before) == []
    with pytest.raises(UsageError, match="closed before it finished"):
        _ = stream.result


def test_an_error_that_ends_the_loop_is_raised_by_the_stream() -> None:
    before = set(threading.enumerate())
    stream = Orchestrator(tools=nap_tools(Calls()), config=config()).iter("x", plan=plan(step(1, "no_such_tool")))
    with pytest.raises(UsageError, match="no_such_tool"):
        list(stream)
    assert new_threads(before) == []
    with pytest.raises(UsageError, match="raised PlanValidationError"):
        _ = stream.result


def test_approval_callbacks_run_in_the_consuming_thread() -> None:
    asked_in: list[threading.Thread] = []

    def approve(proposed: Plan) -> Plan:
        asked_in.append(threading.current_thread())
        return proposed

    stream = Orchestrator(tools=nap_tools(Calls()), config=config()).iter("run", plan=chain(2), approve_plan=approve)
    kinds = [e.kind for e in stream]
    assert asked_in == [threading.current_thread()]
    assert kinds.index("plan_approved") == kinds.index("plan_created") + 1
    assert stream.result.status == "succeeded"


def test_the_deadline_counts_a_slow_consumer() -> None:
    """The run's deadline holds while the stream is read slowly: no step starts after it."""
    stream = Orchestrator(tools=nap_tools(Calls()), config=config(timeout=0.5)).iter("run", plan=chain(3))
    for event in stream:
        if isinstance(event, StepFinished) and event.step_num == 1:
            time.sleep(0.6)
    result = stream.result
    assert [s.status for s in result.steps] == ["succeeded", "skipped", "skipped"]
    assert result.status == "partial" and "deadline (0.5 s) passed after 1 of 3" in result.errors[0]


def test_reading_the_result_early_names_the_fix() -> None:
    stream = Orchestrator(tools=nap_tools(Calls()), config=config()).iter("run", plan=chain(1))
    with pytest.raises(UsageError, match="has not finished; iterate the stream to its end"):
        _ = stream.result
    assert next(stream).kind == "run_started"
    stream.close()


def test_breaking_at_run_finished_still_writes_the_reports(tmp_path: Path) -> None:
    stream = Orchestrator(tools=nap_tools(Calls()), config=config(write_outputs=True, output_root=tmp_path)).iter(
        "run", plan=chain(1))
    for event in stream:
        if isinstance(event, RunFinished):
            break
    stream.close()
    assert stream.result.status == "succeeded"
    assert (Path(str(stream.result.output_dir)) / "report.json").is_file()
