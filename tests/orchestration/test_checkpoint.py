"""Checkpoint and resume: a run killed with SIGKILL mid-step finishes on resume with the same results."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from planexec import Orchestrator
from planexec.checkpoint import (
    ARRAYS,
    CHECKPOINT,
    VERSION,
    _read_journal,
    load_checkpoint,
    save_checkpoint,
)
from planexec.errors import InputError, UsageError
from planexec.events import EventBus
from planexec.models import Plan, StepResult, ToolAttempt
from planexec.state import RunState
from planexec.tools import ToolOutput, ToolRegistry, tool
from tests.orchestration import slow_plugin
from tests.orchestration.helpers import config, plan, step

HERE = Path(__file__).resolve().parent
PLANEXEC = Path(sys.executable).parent / "planexec"

CHILD = """
import sys
from planexec import Orchestrator
from planexec.config import Config
from planexec.models import Plan
from planexec.tools import ToolRegistry
import slow_plugin

plan = Plan.from_dict({plan!r})
cfg = Config.from_env(embedder="none", rag=False, max_parallel=1, max_replans=0, tool_learning=False)
Orchestrator(tools=ToolRegistry(slow_plugin.TOOLS), config=cfg).run("make, square and summarise a signal", plan=plan)
"""


def signal_plan(markers: Path) -> Plan:
    m = {"markers": str(markers)}
    return plan(step(1, "make_signal", args=m, goal="make the signal"),
                step(2, "slow_square", args=m, deps=(1,), goal="square it"),
                step(3, "summarise_signal", args=m, deps=(2,), goal="summarise"))


def child_env(out: Path, slow: float) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(HERE), "PLANEXEC_OUTPUT_ROOT": str(out),
            slow_plugin.SLOW_SECONDS: str(slow)}


def kill_mid_step(tmp: Path) -> tuple[Path, Path]:
    """Start the run in a child, SIGKILL it while step 2 sleeps; return (run folder, markers)."""
    markers, out = tmp / "markers", tmp / "outputs"
    code = CHILD.format(plan=signal_plan(markers).to_dict())
    log = tmp / "child.log"
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", code], env=child_env(out, 60.0),
                                stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while slow_plugin.calls(markers, "slow_square") == 0:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the child never reached step 2"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    (run_dir,) = list(out.iterdir())
    return run_dir, markers


def clean_results(tmp: Path) -> dict[str, Any]:
    markers = tmp / "clean_markers"
    cfg = config(write_outputs=True, output_root=tmp / "clean", tool_learning=False)
    result = Orchestrator(tools=ToolRegistry(slow_plugin.TOOLS), config=cfg).run(
        "make, square and summarise a signal", plan=signal_plan(markers))
    assert result.status == "succeeded"
    return result.results


def assert_same_results(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert set(a) == set(b)
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert isinstance(b[key], np.ndarray) and a[key].dtype == b[key].dtype
            np.testing.assert_array_equal(a[key], b[key])
        else:
            assert a[key] == b[key], key


def test_sigkill_mid_step_then_resume_in_python(tmp_path: Path) -> None:
    run_dir, markers = kill_mid_step(tmp_path)
    saved = _read_journal(run_dir / CHECKPOINT)
    assert [s["step"]["step_num"] for s in saved["steps"]] == [1] and not saved["finished"]
    assert saved["tool_modules"] == ["slow_plugin"]
    for npy in (run_dir / ARRAYS).glob("*.npy"):
        np.load(npy, allow_pickle=False)  # data only: loads without pickle
    assert any((run_dir / ARRAYS).glob("*.npy"))

    orch = Orchestrator(tools=ToolRegistry(slow_plugin.TOOLS), config=config(write_outputs=True, tool_learning=False))
    resumed = orch.resume(run_dir)
    assert resumed.status == "succeeded", resumed.errors
    assert slow_plugin.calls(markers, "make_signal") == 1, "the finished step was not run again"
    assert slow_plugin.calls(markers, "slow_square") == 2, "the interrupted step ran again"
    assert slow_plugin.calls(markers, "summarise_signal") == 1
    assert_same_results(resumed.results, clean_results(tmp_path))
    assert resumed.results["peak_dtype"] == "int32"
    assert [s.status for s in resumed.steps] == ["succeeded"] * 3
    assert resumed.output_dir == str(run_dir)
    assert (run_dir / "report.json").exists()

    with pytest.raises(UsageError, match="already finished"):
        orch.resume(run_dir)


def test_sigkill_then_resume_from_the_command_line(tmp_path: Path) -> None:
    run_dir, markers = kill_mid_step(tmp_path)
    env = {**child_env(tmp_path / "outputs", 0.05), "PLANEXEC_EMBEDDER": "none", "PLANEXEC_RAG": "0"}
    without = subprocess.run([str(PLANEXEC), "resume", str(run_dir)], env=env, capture_output=True, text=True,
                             timeout=120)
    assert without.returncode == 2
    assert "--tools" in without.stderr and "slow_plugin" in without.stderr

    done = subprocess.run([str(PLANEXEC), "resume", str(run_dir), "--tools", "slow_plugin", "--json"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "succeeded"
    assert slow_plugin.calls(markers, "make_signal") == 1
    assert slow_plugin.calls(markers, "summarise_signal") == 1
    clean = clean_results(tmp_path)
    assert result["results"]["n_peaks"] == clean["n_peaks"] and result["results"]["rms"] == clean["rms"]
    assert result["results"]["signal"] == clean["signal"].tolist()

    again = subprocess.run([str(PLANEXEC), "resume", str(run_dir), "--tools", "slow_plugin"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "already finished" in again.stderr


def test_resume_errors_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        load_checkpoint(tmp_path / "missing")
    with pytest.raises(InputError, match="no checkpoint"):
        load_checkpoint(tmp_path)


# -- what a checkpoint keeps ----------------------------------------------------------------

ARRAYS_ANY = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_, np.complex128]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
)
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                   st.text(max_size=8), ARRAYS_ANY,
                   st.sampled_from([np.float32(1.5), np.int64(7), np.bool_(True)]))
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner, inner),
    st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3)), max_leaves=12)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, np.generic):
        return type(a) is type(b) and (a == b or (a != a and b != b))
    if isinstance(a, float):
        return isinstance(b, float) and (a == b or (math.isnan(a) and math.isnan(b)))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(state=st.dictionaries(st.text(min_size=1, max_size=6), VALUES, max_size=4),
       results=st.dictionaries(st.text(min_size=1, max_size=6), VALUES, max_size=3))
def test_state_and_results_survive_a_checkpoint(tmp_path_factory: pytest.TempPathFactory,
                                                state: dict[str, Any], results: dict[str, Any]) -> None:
    folder = tmp_path_factory.mktemp("ckpt")
    run = RunState("keep my data", config(), ToolRegistry(slow_plugin.TOOLS), EventBus(), output_dir=folder,
                   plan=plan(step(1, "make_signal")))
    run.state.update(state)
    run.results.update(results)
    save_checkpoint(run)
    data = load_checkpoint(folder)
    assert same(data["results"], results)
    assert same({k: v for k, v in data["state"].items() if k != "variables"}, {k: v for k, v in state.items()
                                                                              if k != "variables"})


def test_a_step_output_of_arrays_is_written_once_as_npy_and_read_back(tmp_path: Path) -> None:
    """Per-ROI traces in a step's output (and its attempt's) go beside the journal in their dtype, not as JSON."""
    traces = np.random.default_rng(0).random((40, 2000), dtype=np.float32)
    out = {"F": traces, "stat": [{"ypix": np.arange(5, dtype=np.int32), "med": (1.5, 2.0)}], "n": 40}
    s = step(1, "make_signal")
    done = StepResult(s, "succeeded", attempts=(ToolAttempt("make_signal", {"x": traces[0]}, True, out),), output=out)
    run = RunState("keep my traces", config(), ToolRegistry(slow_plugin.TOOLS), EventBus(), output_dir=tmp_path,
                   plan=plan(s, step(2, "slow_square", deps=(1,))))
    run.step_results[1] = done
    save_checkpoint(run)
    assert (tmp_path / CHECKPOINT).stat().st_size < traces.nbytes / 20  # JSON numbers would be ~3x the bytes
    assert len([p for p in (tmp_path / ARRAYS).glob("*.npy") if np.load(p).shape == traces.shape]) == 1
    (back,) = load_checkpoint(tmp_path)["steps"]
    assert same(back.output, out) and same(back.attempts[0].output, out)
    assert back.output["F"].dtype == np.float32 and same(back.attempts[0].input, {"x": traces[0]})


def test_a_value_the_checkpoint_cannot_keep_makes_its_producer_run_again(tmp_path: Path) -> None:
    """An object (not data) and a plain number: only the object's producer runs again on resume."""
    made: list[str] = []

    class Model:
        def __init__(self, slope: float) -> None:
            self.slope = slope

    @tool(type="data", produces=("model",))
    def fit() -> ToolOutput:
        """Fit a model object."""
        made.append("fit")
        return ToolOutput({"slope": 2.0}, state={"model": Model(2.0)})

    @tool(type="data", produces=("offset",))
    def offset() -> ToolOutput:
        """Choose an offset."""
        made.append("offset")
        return ToolOutput(1.0, state={"offset": 1.0})

    @tool(type="data", consumes=("model", "offset"))
    def predict(ctx: Any) -> ToolOutput:
        """Predict with the model."""
        made.append("predict")
        return ToolOutput(1, results={"prediction": ctx.state["model"].slope * 3 + ctx.state["offset"]})

    tools = ToolRegistry([fit, offset, predict])
    steps = plan(step(1, "fit", outputs=("model",)), step(2, "offset", outputs=("offset",)),
                 step(3, "predict", inputs=("model", "offset"), deps=(1, 2)))

    def stop_at_step_3(event: Any) -> None:
        if event.kind == "step_started" and event.step_num == 3:
            raise KeyboardInterrupt

    cfg = config(write_outputs=True, output_root=tmp_path, max_parallel=1, tool_learning=False)
    with pytest.raises(KeyboardInterrupt):
        Orchestrator(tools=tools, config=cfg).run("fit and predict", plan=steps, on_event=stop_at_step_3)
    (run_dir,) = list(tmp_path.iterdir())
    assert made == ["fit", "offset"]
    result = Orchestrator(tools=tools, config=cfg).resume(run_dir)
    assert result.status == "succeeded", result.errors
    assert made == ["fit", "offset", "fit", "predict"]
    assert result.results == {"prediction": 7.0}


def test_resume_needs_the_run_tools(tmp_path: Path) -> None:
    run = RunState("x", config(), ToolRegistry(slow_plugin.TOOLS), EventBus(), output_dir=tmp_path,
                   plan=plan(step(1, "make_signal", args={"markers": str(tmp_path)})))
    save_checkpoint(run)
    with pytest.raises(UsageError, match="not registered.*slow_plugin"):
        Orchestrator(tools=ToolRegistry(), config=config()).resume(tmp_path)


def test_a_line_torn_by_a_kill_is_ignored(tmp_path: Path) -> None:
    """The journal's last line cut mid-write (a kill during the append) leaves the earlier state readable."""
    run_dir, _ = kill_mid_step(tmp_path)
    path = run_dir / CHECKPOINT
    whole = path.read_text()
    path.write_text(whole + f'{{"version": {VERSION}, "finished": true, "steps": [{{"step": ')
    data = load_checkpoint(run_dir)
    assert [r.step.step_num for r in data["steps"]] == [1] and not data["finished"]
