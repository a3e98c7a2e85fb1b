"""Escape classes 5, 6 and 7: the host side reading what a worker hands back.

The worker's code writes straight to its channel (policy off), forging replies the host
must treat as hostile: trickled bytes, huge or sparse arrays, too many figures, FIFOs.
Each test measures the host: how long `run()` took, how much memory this process peaked at,
what reached the run's results, checkpoint and report.
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

import numpy as np
import pytest

from planexec import Orchestrator
from planexec.checkpoint import ARRAYS, CHECKPOINT, load_checkpoint, save_checkpoint
from planexec.errors import InputError
from planexec.events import EventBus
from planexec.sandbox import Sandbox
from planexec.state import RunState
from planexec.tools import ToolRegistry
from tests.orchestration.helpers import config, plan, step

FORGE = """
import os, stat, json, struct
chan = [fd for fd in range(3, 64) if _isock(fd)][0]
def send(msg):
    data = json.dumps(msg).encode()
    os.write(chan, struct.pack('!I', len(data)) + data)
def npy_header(shape, dtype='<f8'):
    head = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (dtype, tuple(shape))
    head = head + ' ' * (63 - (len(head) + 10) % 64) + '\\n'
    return b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(head)) + head.encode()
"""
ISOCK = ("def _isock(fd):\n    try:\n        return stat.S_ISSOCK(os.fstat(fd).st_mode)\n"
         "    except OSError:\n        return False\n")


def forge(body: str) -> str:
    return "import os, stat\n" + ISOCK + FORGE + body + "\nimport time\ntime.sleep(30)\n"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.fixture(scope="module")
def small() -> Sandbox:
    sb = Sandbox(memory_mb=64, timeout=4, check_policy=False)
    assert sb.run("results = {}").ok  # the fork server is up before anything is timed
    return sb


# --- one deadline per run -------------------------------------------------------------------


TRICKLE = forge("os.write(chan, struct.pack('!I', 1000))\nfor _ in range(100):\n"
                "    os.write(chan, b' ')\n    time.sleep(0.5)")


@pytest.mark.parametrize("timeout", [1.0, 2.0])
def test_trickled_bytes_do_not_extend_the_deadline(small, timeout):
    started = time.monotonic()
    r = small.run(TRICKLE, timeout=timeout)
    elapsed = time.monotonic() - started
    assert r.error_type == "Timeout"
    assert elapsed < timeout + 1.5


def test_trickle_in_a_session_is_bounded_and_the_session_recovers(small):
    with small.session() as s:
        s.run("x = 1")
        started = time.monotonic()
        r = s.run(TRICKLE, timeout=1.5)
        assert r.error_type == "Timeout" and time.monotonic() - started < 3.0
        again = s.run("results = {'v': 2}")
    assert again.ok and again.results == {"v": 2}


# --- size and count limits, checked before reading ------------------------------------------


HUGE = {
    "sparse_600mb": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((75 << 20,)))\n"
                     "    fh.truncate(128 + (600 << 20))\n"
                     "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "sparse_1gb": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((125 << 20,)))\n"
                   "    fh.truncate(128 + (1000 << 20))\n"
                   "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "declared_huge_file_small": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((1 << 30,)))\n"
                                 "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "same_file_many_times": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((1 << 20,)))\n"
                             "    fh.truncate(128 + (8 << 20))\n"
                             "send({'ok': True, 'results': {str(i): {'$ndarray': 'a.npy'} for i in range(5000)}, "
                             "'figures': []})"),
    "many_small_arrays": ("for i in range(400):\n    np.save(f'x{i}.npy', np.zeros(4))\n"
                          "send({'ok': True, 'results': {str(i): {'$ndarray': f'x{i}.npy'} for i in range(400)}, "
                          "'figures': []})"),
    "trailing_bytes": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((4,)))\n    fh.truncate(160 + (100 << 20))\n"
                       "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "fifo_array": ("os.mkfifo('a.npy')\n"
                   "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "object_array": ("with open('a.npy', 'wb') as fh:\n    fh.write(npy_header((4,), '|O'))\n"
                     "send({'ok': True, 'results': {'a': {'$ndarray': 'a.npy'}}, 'figures': []})"),
    "many_figures": ("send({'ok': True, 'results': {}, 'figures': [f'f{i}.png' for i in range(1000)]})"),
    "sparse_figure": ("with open('f.png', 'wb') as fh:\n    fh.write(b'\\x89PNG\\r\\n\\x1a\\n')\n"
                      "    fh.truncate(200 << 20)\n"
                      "send({'ok': True, 'results': {}, 'figures': ['f.png']})"),
    "figures_add_up": ("for i in range(30):\n    with open(f'f{i}.png', 'wb') as fh:\n"
                       "        fh.write(b'\\x89PNG\\r\\n\\x1a\\n')\n        fh.truncate(10 << 20)\n"
                       "send({'ok': True, 'results': {}, 'figures': [f'f{i}.png' for i in range(30)]})"),
    "fifo_figure": ("os.mkfifo('f.png')\nsend({'ok': True, 'results': {}, 'figures': ['f.png']})"),
    "traversal_figure": ("send({'ok': True, 'results': {}, 'figures': ['../inputs.json']})"),
    "message_over_cap": ("os.write(chan, struct.pack('!I', 1 << 31))"),
}


@pytest.mark.parametrize("attack", sorted(HUGE))
def test_forged_results_are_refused_before_reading(small, attack):
    before = peak_rss_mb()
    started = time.monotonic()
    r = small.run(forge(HUGE[attack]), timeout=4)
    assert not r.ok and not r.results and not r.figures
    # refused by the host, or (FIFOs) not even makeable in the worker
    assert r.error_type in ("OutputTooLarge", "Timeout", "PermissionError")
    assert time.monotonic() - started < 6
    assert peak_rss_mb() - before < 60


def test_legitimate_results_within_the_caps_still_arrive(small):
    r = small.run("results = {'a': np.arange(1000.0), 'b': [np.ones((3, 3))]}\nplt.plot([1, 2])")
    assert r.ok and r.results["a"].sum() == 499500.0 and len(r.figures) == 1


def test_too_many_real_figures_are_refused():
    r = Sandbox(memory_mb=512, timeout=20, check_policy=False).run("for i in range(40):\n    plt.figure()\nresults = {'n': 40}")
    assert not r.ok and r.error_type == "OutputTooLarge" and not r.figures


# --- class 7: result keys cannot collide with the host's ------------------------------------


def test_step_results_cannot_overwrite_host_keys(tmp_path):
    from planexec.tools import ToolOutput

    run = RunState("x", config(), ToolRegistry(), EventBus())
    run.apply_output(ToolOutput(value={}, summary="", results={"saved_capabilities": 7, "mean": 1.0}))
    run.results.setdefault("saved_capabilities", []).append("cap-1")
    assert run.results["saved_capabilities"] == ["cap-1"]
    assert run.results["step.saved_capabilities"] == 7 and run.results["mean"] == 1.0


def test_saved_capabilities_result_then_coder_step_finishes_the_run(tmp_path):
    from planexec.llm import ScriptedLLM

    llm = ScriptedLLM(["```python\nresults = {'total': float(np.sum(values))}\n```"])
    cfg = config(write_outputs=True, output_root=tmp_path / "out", home=tmp_path / "home",
                 tool_learning=True)
    p = plan(step(1, "python_code", args={"code": "values = np.arange(4.0)\nresults = {'saved_capabilities': 7}"},
                  goal="make values", outputs=("values",)),
             step(2, "python_coder", args={}, deps=(1,), goal="sum the values", inputs=("values",),
                  outputs=("total",)))
    result = Orchestrator(llm=llm, config=cfg).run("make values and sum them", plan=p)
    assert result.status == "succeeded", result.errors
    assert result.results["step.saved_capabilities"] == 7
    assert isinstance(result.results["saved_capabilities"], list)
    assert result.results["total"] == 6.0
    assert (Path(result.output_dir) / "report.json").exists()


# --- class 6: checkpoint references ---------------------------------------------------------


@pytest.fixture
def host_array(tmp_path):
    path = tmp_path / "host_secret_0123456789abcdef.npy"
    np.save(path, np.full(4, 4711.0))
    return path


def checkpoint_with(tmp_path, variables, results=None) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    run = RunState("x", config(checkpoint=True), ToolRegistry(), EventBus(), output_dir=out,
                   plan=plan(step(1, "python_code", args={"code": "x = 1"})))
    run.state["variables"] = dict(variables)
    run.results.update(results or {})
    save_checkpoint(run)
    return out


@pytest.mark.parametrize("ref", ["abs", "dotdot", "name_only"])
def test_a_variable_shaped_like_a_reference_stays_data(tmp_path, host_array, ref):
    target = {"abs": str(host_array), "dotdot": f"../../{host_array.name}",
              "name_only": host_array.name}[ref]
    out = checkpoint_with(tmp_path, {"leak": {"__ndarray__": target}},
                          {"r": {"__ndarray__": target}})
    data = load_checkpoint(out)
    assert data["state"]["variables"]["leak"] == {"__ndarray__": target}
    assert data["results"]["r"] == {"__ndarray__": target}
    assert "4711" not in repr(data)


@pytest.mark.parametrize("name", ["/etc/passwd", "../../x_0123456789abcdef.npy",
                                  "host_secret_0123456789abcdef.npy"])
def test_a_tampered_reference_is_refused(tmp_path, host_array, name):
    out = checkpoint_with(tmp_path, {"arr": np.arange(3.0)})
    (out / ARRAYS / host_array.name).write_bytes(host_array.read_bytes())
    path = out / CHECKPOINT
    line = json.loads(path.read_text().splitlines()[-1])
    line["state"]["variables"]["arr"] = {"__ndarray__": name}
    path.write_text(path.read_text() + json.dumps(line) + "\n")
    with pytest.raises(InputError, match="did not write"):
        load_checkpoint(out)


def test_arrays_the_checkpoint_wrote_still_load(tmp_path):
    out = checkpoint_with(tmp_path, {"arr": np.arange(3.0)}, {"m": np.ones((2, 2))})
    data = load_checkpoint(out)
    assert data["state"]["variables"]["arr"].tolist() == [0.0, 1.0, 2.0]
    assert data["results"]["m"].shape == (2, 2)


def test_a_symlinked_array_is_refused(tmp_path, host_array):
    out = checkpoint_with(tmp_path, {"arr": np.arange(3.0)})
    (name,) = [p.name for p in (out / ARRAYS).iterdir()]
    (out / ARRAYS / name).unlink()
    (out / ARRAYS / name).symlink_to(host_array)
    with pytest.raises(OSError):
        load_checkpoint(out)


def test_a_session_recovers_right_after_refused_output(small):
    with small.session() as s:
        s.run("x = 1")
        bad = s.run(forge(HUGE["many_figures"]), timeout=4)
        assert bad.error_type == "OutputTooLarge" and "gone" in str(bad.error)
        good = s.run("results = {'v': 3}")
    assert good.ok and good.results == {"v": 3}
