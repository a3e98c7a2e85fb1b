"""The public API of planexec.evals is explicit and importing it loads nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import planexec.evals as evals


def test_all_names_exist_and_are_sorted() -> None:
    assert evals.__all__ == sorted(evals.__all__)
    for name in evals.__all__:
        assert hasattr(evals, name), name
    public = {n for n in dir(evals) if not n.startswith("_") and n not in
              {"annotations", "base", "judge", "registry", "reporting", "runner", "scoring", "similarity_checks", "suite",
               "text_checks", "json_checks", "code_check", "run_checks", "suite_schema"}}
    assert public == set(evals.__all__)


def test_import_is_light() -> None:
    code = ("import sys, planexec.evals; "
            "heavy = [m for m in ('torch', 'sentence_transformers', 'jsonschema', 'numpy', 'planexec.sandbox', "
            "'planexec.orchestrator') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
