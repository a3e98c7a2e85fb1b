"""Shared pieces of the core tests: a fast configuration and small real tools."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path
from typing import Any

from planexec.config import Config
from planexec.models import Plan, PlanStep
from planexec.tools import ToolContext, ToolOutput, ToolRegistry, tool

REPO = Path(__file__).resolve().parents[2]
SALES = REPO / "data" / "examples" / "sales.csv"


def fast_config(**changes: Any) -> Config:
    """Keyword similarity, no RAG, one step at a time, no replanning: deterministic and quick."""
    base = {"embedder": "none", "rag": False, "max_parallel": 1, "max_replans": 0}
    return Config.from_env(**{**base, **changes})


def mean_revenue() -> float:
    """The sales example's mean revenue, computed here from the CSV itself."""
    with SALES.open(newline="") as fh:
        return statistics.fmean(float(r["revenue"]) for r in csv.DictReader(fh))


def step(num: int, *tools: str, fallback: tuple[str, ...] = (), deps: tuple[int, ...] = (), **kw: Any) -> PlanStep:
    return PlanStep(num, kw.pop("goal", f"do part {num}"), tuple(tools), fallback, depends_on=deps, **kw)


def plan(*steps: PlanStep) -> Plan:
    return Plan(tuple(steps), planner="test")


class Counter:
    """Counts calls per tool so tests can see what ran."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def hit(self, name: str) -> int:
        self.calls[name] = self.calls.get(name, 0) + 1
        return self.calls[name]


def toolbox(counter: Counter | None = None) -> ToolRegistry:
    """Tools that succeed, raise, report failure, publish state, and read it back."""
    seen = counter or Counter()

    @tool(type="analyzer")
    def broken() -> str:
        """Always raises, like a tool whose backend is down."""
        seen.hit("broken")
        raise RuntimeError("backend is down")

    @tool(type="analyzer")
    def refuses() -> ToolOutput:
        """Reports failure without raising, and carries state that must not leak."""
        seen.hit("refuses")
        return ToolOutput(value=None, ok=False, error="refused politely", state={"leaked": True})

    @tool(type="data")
    def steady() -> dict[str, Any]:
        """Always works."""
        seen.hit("steady")
        return {"answer": 42}

    @tool(type="data")
    def big(n: int = 10_000) -> ToolOutput:
        """A large structured output."""
        seen.hit("big")
        values = [i * 0.5 for i in range(n)]
        return ToolOutput(value={"values": values, "n": n}, summary=f"{n} values", results={"n_values": n})

    @tool(type="statistics")
    def publish(x: int = 5) -> ToolOutput:
        """Publishes x into the run state and a key figure."""
        seen.hit("publish")
        return ToolOutput(value={"x": x}, summary=f"x={x}", state={"x": x}, results={"x_published": x})

    @tool(type="statistics")
    def double(ctx: ToolContext) -> ToolOutput:
        """Reads x from the run state and doubles it."""
        seen.hit("double")
        if "x" not in ctx.state:
            raise KeyError("x is not in the run state")
        return ToolOutput(value=ctx.state["x"] * 2, summary="doubled",
                          results={"doubled": ctx.state["x"] * 2, "saw_leak": "leaked" in ctx.state})

    @tool(type="data")
    def second_time_lucky() -> str:
        """Fails on its first call, works afterwards."""
        if seen.hit("second_time_lucky") == 1:
            raise ConnectionError("first call fails")
        return "recovered"

    return ToolRegistry([broken, refuses, steady, big, publish, double, second_time_lucky])


def plan_json(*steps: dict[str, Any], rationale: str = "scripted") -> str:
    return json.dumps({"rationale": rationale, "steps": list(steps)})
