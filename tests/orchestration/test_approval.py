"""Human approval: plan edits and rejections, per-tool approval, and the CLI's --approve."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from planexec import Orchestrator
from planexec.cli import cli
from planexec.errors import PlanValidationError, UsageError
from planexec.models import Plan
from planexec.tools import ToolOutput, ToolRegistry, tool
from tests.orchestration.helpers import Calls, Recorder, config, nap_tools, plan, step

REPO = Path(__file__).resolve().parents[2]
PLANEXEC = Path(sys.executable).parent / "planexec"


def two_steps() -> Plan:
    return plan(step(1, "nap", args={"name": "one"}), step(2, "nap", args={"name": "two"}, deps=(1,)))


def test_callback_sees_the_plan_and_can_edit_it() -> None:
    calls, rec = Calls(), Recorder()
    seen: list[Plan] = []

    def edit(p: Plan) -> Plan:
        seen.append(p)
        return Plan((p.steps[0], step(2, "nap", args={"name": "edited"}, deps=(1,))), planner="human")

    result = Orchestrator(tools=nap_tools(calls), config=config()).run(
        "two parts", plan=two_steps(), approve_plan=edit, on_event=rec)
    assert seen and seen[0] == two_steps()
    assert result.status == "succeeded"
    assert calls.count == {"one": 1, "edited": 1}
    assert result.plan.step(2).args == {"name": "edited"}
    (approved,) = rec.of("plan_approved")
    assert approved.edited is True


def test_unchanged_plan_is_approved_as_is() -> None:
    rec = Recorder()
    result = Orchestrator(tools=nap_tools(Calls()), config=config()).run(
        "two parts", plan=two_steps(), approve_plan=lambda p: p, on_event=rec)
    assert result.status == "succeeded"
    assert rec.of("plan_approved")[0].edited is False


def test_rejection_runs_no_tool() -> None:
    calls, rec = Calls(), Recorder()
    result = Orchestrator(tools=nap_tools(calls), config=config()).run(
        "two parts", plan=two_steps(), approve_plan=lambda p: None, on_event=rec)
    assert result.status == "rejected"
    assert calls.count == {}
    assert result.steps == []
    assert not rec.of("step_started") and not rec.of("attempt_started")
    assert "the plan was rejected" in result.errors


def test_an_edited_plan_is_validated() -> None:
    def bad(p: Plan) -> Plan:
        return plan(step(1, "no_such_tool"))

    with pytest.raises(PlanValidationError, match="no_such_tool"):
        Orchestrator(tools=nap_tools(Calls()), config=config()).run("x", plan=two_steps(), approve_plan=bad)


def test_a_callback_answering_something_else_is_a_clear_error() -> None:
    with pytest.raises(UsageError, match="must return the Plan"):
        Orchestrator(tools=nap_tools(Calls()), config=config()).run(
            "x", plan=two_steps(), approve_plan=lambda p: True)  # type: ignore[arg-type,return-value]


# -- per-tool approval --------------------------------------------------------------------


def guarded_tools(calls: Calls) -> ToolRegistry:
    @tool(type="code", requires_approval=True)
    def delete_files(pattern: str = "*.tmp") -> str:
        """Delete files (dangerous: needs approval)."""
        calls.enter("delete_files")
        calls.leave()
        return f"deleted {pattern}"

    @tool(type="data")
    def list_files() -> ToolOutput:
        """List files (harmless fallback)."""
        calls.enter("list_files")
        calls.leave()
        return ToolOutput(["a.tmp"], results={"listed": 1})

    return ToolRegistry([delete_files, list_files])


GUARDED = plan(step(1, "delete_files", fallback=("list_files",), args={"pattern": "*.log"}))


def test_denied_tool_fails_clearly_and_the_fallback_runs() -> None:
    calls = Calls()
    asked: list[tuple[str, dict[str, Any]]] = []

    def deny(name: str, args: dict[str, Any]) -> bool:
        asked.append((name, args))
        return False

    result = Orchestrator(tools=guarded_tools(calls), config=config()).run(
        "clean up", plan=GUARDED, approve_tool=deny)
    assert asked == [("delete_files", {"pattern": "*.log"})]
    first, second = result.steps[0].attempts
    assert not first.ok and "not approved" in (first.error or "")
    assert second.tool == "list_files" and second.ok
    assert calls.count == {"list_files": 1}
    assert result.status == "succeeded"


def test_approved_tool_runs() -> None:
    calls = Calls()
    result = Orchestrator(tools=guarded_tools(calls), config=config()).run(
        "clean up", plan=GUARDED, approve_tool=lambda name, args: True)
    assert result.steps[0].tool == "delete_files"
    assert calls.count == {"delete_files": 1}


def test_a_tool_requiring_approval_never_runs_without_an_approver() -> None:
    calls = Calls()
    result = Orchestrator(tools=guarded_tools(calls), config=config()).run("clean up", plan=GUARDED)
    assert "no approver" in (result.steps[0].attempts[0].error or "")
    assert calls.count == {"list_files": 1}


# -- the CLI ------------------------------------------------------------------------------


def test_cli_approve_without_a_terminal_refuses_instead_of_hanging() -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["run", "describe the table data/examples/sales.csv", "--approve", "--llm", "none"],
                        input="")
    assert res.exit_code == 2
    assert "--approve needs an interactive terminal" in res.output
    res = runner.invoke(cli, ["resume", "nowhere", "--approve"], input="")
    assert res.exit_code == 2 and "interactive terminal" in res.output


def _run_in_pty(args: list[str], answer: bytes, env: dict[str, str]) -> tuple[int, str]:
    """Run the real `planexec` under a pseudo-terminal and answer its question."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO, close_fds=True)
    os.close(slave)
    out = b""
    answered = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not answered and b"Run this plan?" in out:
            os.write(master, answer)
            answered = True
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=30)
    os.close(master)
    return proc.returncode, out.decode("utf-8", "replace")


@pytest.mark.parametrize(("answer", "code", "words"), [(b"n\n", 3, "rejected"), (b"y\n", 0, "succeeded")])
def test_cli_approve_in_a_terminal_asks_and_obeys(tmp_path: Path, answer: bytes, code: int, words: str) -> None:
    env = {**os.environ, "PLANEXEC_EMBEDDER": "none", "PLANEXEC_RAG": "0", "PLANEXEC_OUTPUT_ROOT": str(tmp_path),
           "TERM": "dumb"}
    rc, out = _run_in_pty([str(PLANEXEC), "run", "describe the table data/examples/sales.csv", "--llm", "none",
                           "--approve"], answer, env)
    assert "Run this plan?" in out and "describe_table" in out
    assert rc == code, out
    assert words in out
