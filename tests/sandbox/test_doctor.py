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
