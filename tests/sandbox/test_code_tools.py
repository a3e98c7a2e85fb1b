"""python_code and python_coder run in the run's sandbox session."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planexec.errors import ToolError
from planexec.llm import ScriptedLLM
from planexec.models import PlanStep
from planexec.tools import Services, ToolContext, default_registry
from planexec.tools.code import extract_code, python_code, python_coder


@pytest.fixture
def ctx(tmp_path):
    services = Services()
    step = PlanStep(step_num=2, goal="Compute the mean image", primary_tools=("python_code",),
                    outputs=("mean_img",), context="calcium movie")
    context = ToolContext(request="analyse", step=step, output_dir=tmp_path, services=services,
                          state={"variables": {"images": np.ones((4, 5, 5), np.float32)},
                                 "rag_chunks": ["dF/F is (F - F0) / F0."]})
    yield context
    services.close()


def test_registered_in_default_registry():
    names = {t.name for t in default_registry()}
    assert {"python_code", "python_coder"} <= names


def test_python_code_runs_in_session_with_variables(ctx):
    code = ("mean_img = images.mean(axis=0)\nfig, ax = plt.subplots()\nax.imshow(mean_img)\n"
            "figure = fig\nresults = {'mean': float(mean_img.mean())}")
    out = python_code.run({"code": code}, ctx)
    # the code's `results`, plus the step's declared outputs as key results
    assert out.ok and out.results["mean"] == 1.0 and set(out.results) == {"mean", "mean_img"}
    assert len(out.artifacts) == 1 and out.artifacts[0].endswith("step2_python_code_1.png")
    assert Path(out.artifacts[0]).read_bytes()[:4] == b"\x89PNG"
    np.testing.assert_array_equal(out.state["variables"]["mean_img"], np.ones((5, 5)))
    again = python_code.run({"code": "results = {'s': float(mean_img.sum())}"}, ctx)
    assert again.results["s"] == 25.0  # same session, same namespace


def test_python_code_failure_is_data(ctx):
    out = python_code.run({"code": "import os"}, ctx)
    assert not out.ok and "PolicyViolation" in out.error and out.results == {}


def test_new_variables_reach_an_open_session(ctx):
    python_code.run({"code": "results = {}"}, ctx)
    ctx.state["variables"] = {**ctx.state["variables"], "fs": 30.0}
    out = python_code.run({"code": "results = {'fs': fs}"}, ctx)
    assert out.results == {"fs": 30.0}


def test_services_close_closes_the_session(ctx):
    python_code.run({"code": "results = {}"}, ctx)
    session = ctx.services.session.get()
    ctx.services.close()
    assert session.closed


def test_python_coder_needs_an_llm(ctx):
    with pytest.raises(ToolError, match="python_coder needs an LLM"):
        python_coder.run({}, ctx)


def test_python_coder_retries_once_with_the_error(ctx):
    llm = ScriptedLLM([
        "```python\nresults = {'mean': float(imgs.mean())}\n```",
        "Fixed:\n```python\nmean_img = images.mean(axis=0)\nresults = {'mean': float(mean_img.mean())}\n```",
    ])
    ctx.llm = llm
    out = python_coder.run({}, ctx)
    assert out.ok and out.results["mean"] == 1.0 and set(out.results) == {"mean", "mean_img"}
    assert len(out.value["attempts"]) == 2 and not out.value["attempts"][0]["ok"]
    first_prompt = llm.calls[0]["messages"][-1].content
    assert "Compute the mean image" in first_prompt and "images: array shape (4, 5, 5)" in first_prompt
    assert "dF/F" in first_prompt
    retry_prompt = llm.calls[1]["messages"][-1].content
    assert "NameError" in retry_prompt


def test_python_coder_reports_second_failure(ctx):
    ctx.llm = ScriptedLLM(["```python\n1/0\n```", "```python\nraise ValueError('no')\n```"])
    out = python_coder.run({}, ctx)
    assert not out.ok and "ValueError" in out.error and len(out.value["attempts"]) == 2


def test_extract_code():
    assert extract_code("text\n```python\nx = 1\n```\nmore") == "x = 1"
    assert extract_code("x = 2") == "x = 2"
