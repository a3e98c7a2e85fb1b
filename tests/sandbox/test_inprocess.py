"""InProcessSandbox, the sandbox seam's fake: the same ExecutionResult, failures as data, no worker."""

from __future__ import annotations

import numpy as np

from planexec.models import PlanStep
from planexec.protocols import Sandbox, SandboxSession
from planexec.sandbox import Sandbox as ConfinedSandbox
from planexec.sandbox.inprocess import InProcessSandbox
from planexec.services import Services
from planexec.tools import ToolContext
from planexec.tools.code import python_code


def test_real_and_fake_satisfy_the_sandbox_seam() -> None:
    assert isinstance(InProcessSandbox(), Sandbox) and issubclass(ConfinedSandbox, Sandbox)
    real = ConfinedSandbox().session()  # no worker starts before the first run
    assert isinstance(InProcessSandbox().session(), SandboxSession) and isinstance(real, SandboxSession)
    real.close()


def test_a_session_keeps_its_namespace_and_failures_are_data() -> None:
    session = InProcessSandbox().session({"x": np.arange(4.0)})
    assert session.run("total = float(x.sum())\nresults = {'total': total}").results == {"total": 6.0}
    assert session.get(["total"]) == {"total": 6.0}
    failed = session.run("a = 1\nraise ValueError('bad input')")
    assert not failed.ok and failed.error_type == "ValueError" and failed.line == 2


def test_python_code_runs_in_the_injected_sandbox(tmp_path) -> None:
    services = Services(sandbox=InProcessSandbox())
    step = PlanStep(1, "mean", ("python_code",), outputs=("m",))
    ctx = ToolContext(step=step, output_dir=tmp_path, services=services, state={"variables": {"v": [1.0, 3.0]}})
    out = python_code.run({"code": "m = float(np.mean(v))\nresults = {'m': m}"}, ctx)
    assert out.ok and out.results["m"] == 2.0 and out.state["variables"]["m"] == 2.0
    services.close()
    assert ctx.services.session.peek() is None
