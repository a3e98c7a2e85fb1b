"""Tool learning: repeated failures of a step's first primary tool flip the order, visibly; it can be off."""

from __future__ import annotations

from pathlib import Path

from planexec import Orchestrator
from planexec.events import EventBus
from planexec.learning import ToolLearner, tool_learner
from planexec.models import RunResult, ToolAttempt
from planexec.tools import ToolOutput, ToolRegistry, tool
from tests.orchestration.helpers import Calls, Recorder, config, plan, step


def learning_tools(calls: Calls) -> ToolRegistry:
    @tool(type="data")
    def quick_lookup() -> str:
        """A lookup whose backend keeps failing."""
        calls.enter("quick_lookup")
        calls.leave()
        raise TimeoutError("lookup timed out")

    @tool(type="data")
    def full_scan() -> ToolOutput:
        """A slower scan that works."""
        calls.enter("full_scan")
        calls.leave()
        return ToolOutput({"rows": 3}, results={"rows": 3})

    return ToolRegistry([quick_lookup, full_scan])


def lookup_plan(goal: str = "find the customer rows for the region") -> object:
    return plan(step(1, "quick_lookup", "full_scan", goal=goal))


def run_once(calls: Calls, rec: Recorder, goal: str | None = None, **cfg: object) -> RunResult:
    orch = Orchestrator(tools=learning_tools(calls), config=config(**cfg))
    return orch.run("find rows", plan=lookup_plan(goal) if goal else lookup_plan(), on_event=rec)


def test_order_flips_after_repeated_failures_of_the_first_tool() -> None:
    calls = Calls()
    for _ in range(3):
        rec = Recorder()
        result = run_once(calls, rec)
        assert [a.tool for a in result.steps[0].attempts] == ["quick_lookup", "full_scan"]
        assert rec.of("tools_reordered") == []
    rec = Recorder()
    result = run_once(calls, rec)
    (event,) = rec.of("tools_reordered")
    assert event.before == ("quick_lookup", "full_scan") and event.after == ("full_scan", "quick_lookup")
    assert "full_scan 100% of 3" in event.reason and "quick_lookup 0% of 3" in event.reason
    assert [a.tool for a in result.steps[0].attempts] == ["full_scan"]
    assert rec.of("step_started")[0].tools[0] == "full_scan"
    assert calls.count == {"quick_lookup": 3, "full_scan": 4}
    # a similar goal, worded a little differently, benefits too; an unrelated goal does not
    similar = Recorder()
    run_once(calls, similar, goal="find customer rows for a region")
    assert similar.of("tools_reordered")
    unrelated = Recorder()
    run_once(calls, unrelated, goal="plot revenue over time")
    assert unrelated.of("tools_reordered") == []


def test_learning_can_be_disabled(tmp_path: Path) -> None:
    calls = Calls()
    for _ in range(4):
        rec = Recorder()
        result = run_once(calls, rec, tool_learning=False)
        assert rec.of("tools_reordered") == []
        assert result.steps[0].attempts[0].tool == "quick_lookup"
    assert tool_learner(config(tool_learning=False)) is None
    assert not (config().home / "capabilities" / "tool_stats.jsonl").exists()


def test_learner_needs_evidence_for_every_primary_tool(tmp_path: Path) -> None:
    learner = ToolLearner(tmp_path / "stats.jsonl", min_evidence=3)
    s = step(1, "a", "b", goal="count the cells")
    fail_a = (ToolAttempt("a", {}, False, error="x"), ToolAttempt("b", {}, True))
    for _ in range(2):
        learner.observe(s, fail_a)
    assert learner.rates(s.goal, ("a", "b")) == {"a": (0.0, 2), "b": (1.0, 2)}
    # reloading from the file gives the same record; a line cut by a crash is skipped
    with (tmp_path / "stats.jsonl").open("a") as fh:
        fh.write('{"tool": "a", "ok"')
    again = ToolLearner(tmp_path / "stats.jsonl", min_evidence=3)
    assert again.rates(s.goal, ("a", "b")) == {"a": (0.0, 2), "b": (1.0, 2)}
    assert again.rates("plot a histogram", ("a", "b")) == {"a": (0.0, 0), "b": (0.0, 0)}


def test_ties_and_a_better_first_tool_keep_the_plan_order(tmp_path: Path) -> None:
    learner = ToolLearner(tmp_path / "stats.jsonl", min_evidence=1)
    s = step(1, "a", "b", fallback=("c",), goal="count the cells")
    learner.observe(s, (ToolAttempt("a", {}, True),))
    learner.observe(s, (ToolAttempt("b", {}, True),))
    rec = Recorder()
    from planexec.state import RunState

    run = RunState("x", config(), ToolRegistry(), EventBus([rec]))
    assert learner.order(s, run) == ("a", "b", "c")
    assert rec.events == []


def test_embedding_neighbourhood_groups_paraphrased_goals(tmp_path: Path) -> None:
    """With the local embedder, a paraphrase sharing few words with the recorded goals is a neighbour."""
    from planexec.knowledge.embedder import get_embedder

    learner = ToolLearner(tmp_path / "stats.jsonl", embedder=lambda: get_embedder("auto"))
    recorded = step(1, "quick_lookup", "full_scan", goal="find the customer rows for the region")
    attempts = (ToolAttempt("quick_lookup", {}, False, error="timeout"), ToolAttempt("full_scan", {}, True))
    for _ in range(3):
        learner.observe(recorded, attempts)
    paraphrase = "retrieve the customers of this region"
    assert learner.rates(paraphrase, ("quick_lookup", "full_scan")) == {"quick_lookup": (0.0, 3), "full_scan": (1.0, 3)}
    unrelated = "plot the functional boxplot of the curves"
    assert learner.rates(unrelated, ("quick_lookup", "full_scan")) == {"quick_lookup": (0.0, 0), "full_scan": (0.0, 0)}
    keywords = ToolLearner(tmp_path / "stats.jsonl")
    assert keywords.rates(paraphrase, ("full_scan",))["full_scan"][1] == 0


def test_the_record_file_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "stats.jsonl"
    learner = ToolLearner(path, max_records=10)
    goal = step(1, "quick_lookup", "full_scan", goal="find the rows")
    for _ in range(8):
        learner.observe(goal, (ToolAttempt("quick_lookup", {}, False), ToolAttempt("full_scan", {}, True)))
    assert len(path.read_text().splitlines()) == 16
    fresh = ToolLearner(path, max_records=10)
    assert fresh.rates("find the rows", ("full_scan",))["full_scan"][1] == 5  # the newest 10: 5 per tool
    assert len(path.read_text().splitlines()) == 10
