"""A run's one deadline offline: no step starts after it, the status says what was done, nothing written is lost."""

from __future__ import annotations

import json
import time
from pathlib import Path

from planexec import Orchestrator
from planexec.tools import ToolContext, ToolOutput, tool
from tests.core.helpers import fast_config, plan, step, toolbox


@tool(type="data")
def outlast(ctx: ToolContext) -> ToolOutput:
    """Works, and takes as long as the whole run's deadline."""
    time.sleep(ctx.config.timeout)
    return ToolOutput(value=1, summary="outlasted", results={"outlasted": 1})


def test_steps_after_the_deadline_are_skipped_and_the_run_is_partial_and_resumable(tmp_path: Path) -> None:
    tools = toolbox()
    tools.register(outlast)
    config = fast_config(timeout=1.0, output_root=tmp_path / "out")
    result = Orchestrator(None, tools, config).run("outlast, then the rest",
                                                   plan=plan(step(1, "outlast"), step(2, "steady")))
    assert result.status == "partial"  # `planexec run` exits 4
    assert [s.status for s in result.steps] == ["succeeded", "skipped"]
    assert "deadline (1 s) passed after 1 of 2 step(s); step(s) [2] were not run" in result.errors[0]
    assert result.results["outlasted"] == 1
    written = json.loads((Path(result.output_dir) / "report.json").read_text())
    assert written["status"] == "partial" and written["results"]["outlasted"] == 1
    resumed = Orchestrator(None, tools, config.replace(timeout=60.0)).resume(result.output_dir)
    assert resumed.status == "succeeded" and resumed.step_result(2).output == {"answer": 42}


def test_a_deadline_passed_before_any_step_fails_the_run_saying_so(tmp_path: Path) -> None:
    config = fast_config(timeout=1e-9, output_root=tmp_path / "out")
    result = Orchestrator(None, toolbox(), config).run("steady", plan=plan(step(1, "steady")))
    assert result.status == "failed" and result.steps[0].status == "skipped"
    assert "passed after 0 of 1 step(s)" in result.errors[0] and "raise --timeout" in result.errors[0]
