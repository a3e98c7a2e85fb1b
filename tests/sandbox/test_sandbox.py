"""Sandbox behaviour: results, figures, sessions, errors as data, pool lifecycle, public API."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import planexec.sandbox as sandbox_pkg
from planexec.errors import ConfigError, InputError
from planexec.sandbox import ExecutionResult, ForkServer, Sandbox


def test_public_api_is_explicit():
    for name in sandbox_pkg.__all__:
        assert hasattr(sandbox_pkg, name), name


def test_import_starts_nothing():
    code = ("import planexec.sandbox, planexec.tools.code, planexec.sandbox.forkserver as f\n"
            "assert f._server is None\nimport sys\n"
            "assert 'numpy' not in sys.modules and 'matplotlib' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_inputs_results_and_arrays_round_trip(full):
    images = np.random.default_rng(0).random((5, 8, 8)).astype(np.float32)
    r = full.run("results = {'mean': float(images.mean()), 'trace': images.mean(axis=(1, 2)),"
                 " 'n': n, 'label': label}", {"images": images, "n": 3, "label": "a"})
    assert r.ok, r.error
    assert r.results["mean"] == pytest.approx(float(images.mean()), rel=1e-6)
    np.testing.assert_allclose(r.results["trace"], images.mean(axis=(1, 2)), rtol=1e-6)
    assert (r.results["n"], r.results["label"]) == (3, "a")


def test_figures_come_back_as_png(full):
    r = full.run("fig, ax = plt.subplots()\nax.plot([1, 2, 3])\nfigure = fig\nresults = {}")
    assert r.ok and len(r.figures) == 1 and r.figures[0].startswith(b"\x89PNG")


def test_stdout_and_runtime_error_line(full):
    r = full.run("print('hello')\nx = 1\nraise ValueError('bad value')")
    assert not r.ok and r.error_type == "ValueError" and r.line == 3
    assert "bad value" in r.error and r.stdout == "hello\n"


def test_results_must_be_a_dict(full):
    r = full.run("results = [1, 2]")
    assert r.error_type == "ResultError"


def test_unserialisable_result_names_the_key(full):
    r = full.run("results = {'f': len}")
    assert r.error_type == "SerializationError" and "results['f']" in r.error


def test_syntax_error_before_running(full):
    r = full.run("def broken(:\n    pass")
    assert r.error_type == "SyntaxError" and r.layers == ("policy",)


def test_syntax_error_without_policy_still_data(raw):
    r = raw.run("def broken(:\n    pass")
    assert r.error_type == "SyntaxError" and r.line == 1


def test_every_available_layer_is_applied(full):
    r = full.run("results = {}")
    assert r.layers[0] == "policy"
    for layer in Sandbox.capabilities().layers:
        assert any(applied.startswith(layer) for applied in r.layers), layer


def test_session_shares_namespace_and_returns_variables(full):
    images = np.ones((4, 3, 3), np.float32)
    with full.session({"images": images}) as session:
        assert session.run("m = images.mean(axis=0) * 2\nresults = {}").ok
        r = session.run("results = {'total': float(m.sum())}")
        assert r.results == {"total": 18.0}
        got = session.get(["m"])
        np.testing.assert_array_equal(got["m"], np.full((3, 3), 2.0))
        with pytest.raises(InputError, match="nope"):
            session.get(["nope"])
        assert session.get(["nope", "m"], missing_ok=True).keys() == {"m"}
    assert session.closed


def test_session_update_adds_variables(full):
    with full.session({}) as session:
        assert session.run("results = {}").ok
        session.update({"extra": np.arange(3)})
        assert session.run("results = {'s': int(extra.sum())}").results == {"s": 3}


def test_session_restarts_after_timeout(full):
    with full.session({"base": 5}) as session:
        session.run("made = 1\nresults = {}")
        r = session.run("while True:\n    pass", timeout=0.5)
        assert r.error_type == "Timeout" and "gone" in r.error
        r = session.run("results = {'base': base}")
        assert r.ok and r.results["base"] == 5 and session.restarts == 1
        assert session.run("results = {'made': made}").error_type == "NameError"


def test_closed_session_refuses(full):
    session = full.session()
    session.close()
    session.close()
    with pytest.raises(InputError, match="closed"):
        session.get(["x"])


def test_big_input_is_memory_mapped_and_fits(full):
    images = np.zeros((200, 256, 256), np.float32)  # 52 MB, mapped copy-on-write
    r = full.run("images += 1\nresults = {'s': float(images[0].sum())}", {"images": images})
    assert r.ok and r.results == {"s": 65536.0}
    assert images.sum() == 0  # the parent's array is untouched


def test_object_input_is_refused(full):
    with pytest.raises(InputError, match="cannot leave"):
        full.run("results = {}", {"bad": object()})


def test_unknown_layer_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown sandbox layer"):
        Sandbox(layers=["bogus"])


def test_capabilities_name_every_layer():
    caps = Sandbox.capabilities()
    rows = {name: (ok, note) for name, ok, note in caps.describe()}
    for name in ("rlimits", "capabilities", "identity", "namespaces", "cgroup", "quota", "landlock",
                 "seccomp", "policy"):
        assert rows[name][1], name
    for name in caps.missing:
        assert "NOT available" in rows[name][1]


@pytest.mark.slow  # starts its own fork server (several seconds)
def test_fork_server_recovers_after_being_killed():
    server = ForkServer()
    sb = Sandbox(server=server)
    try:
        assert sb.run("results = {'a': 1}").ok
        os.kill(server.pid, 9)
        r = sb.run("results = {'a': 2}")
        assert r.ok and r.results == {"a": 2}
    finally:
        server.close()
    assert not server.running()


@pytest.mark.slow  # starts its own fork server (several seconds)
def test_shutdown_leaves_no_worker_processes():
    server = ForkServer()
    sb = Sandbox(server=server)
    session = sb.session()
    session.run("results = {}")
    worker_pid = session._worker.pid
    server.close()
    with pytest.raises(ProcessLookupError):
        for _ in range(100):
            os.kill(worker_pid, 0)
            import time

            time.sleep(0.02)
    session.close()


def test_execution_result_summary():
    assert "Timeout" in ExecutionResult.failure("Timeout", "too slow").summary()
