"""`planexec doctor` reports the sandbox layers plainly."""

from __future__ import annotations

import json

from click.testing import CliRunner

from planexec.cli import cli
from planexec.sandbox import Sandbox


def test_doctor_json_lists_layers():
    result = CliRunner().invoke(cli, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    caps = Sandbox.capabilities()
    assert report["sandbox"]["layers"] == list(caps.layers)
    assert set(report["sandbox"]["details"]) >= {"landlock", "seccomp", "rlimits", "policy"}
    assert "numpy" in report["packages"]


def test_doctor_text_names_each_layer():
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0
    for name in ("landlock", "seccomp", "rlimits", "capabilities", "policy"):
        assert name in result.output


def test_doctor_states_every_new_layer_and_the_refusal():
    result = CliRunner().invoke(cli, ["doctor", "--json"])
    report = json.loads(result.output)["sandbox"]
    assert set(report["details"]) >= {"identity", "namespaces", "cgroup", "quota"}
    for name, info in report["details"].items():
        assert info["note"], name
        if not info["available"]:
            assert "NOT available" in info["note"], name
    assert report["required"][:2] == ["landlock", "seccomp"]
    missing_required = [n for n in report["required"] if n not in report["layers"]]
    assert bool(report["refusal"]) == bool(missing_required)
    # Landlock's note must not claim what it does not cover
    assert "NOT covered" in report["details"]["landlock"]["note"] or not report["details"]["landlock"]["available"]
