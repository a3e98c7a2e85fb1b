"""Step evaluation: generic rules, plus the evaluator a tool module registers for its tool
(its `EVALUATORS`) adding concerns and highlights; a critical one aborts. The core knows no tool's domain."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from planexec.models import Evaluation, StepResult

ToolEvaluator = Callable[[StepResult], Evaluation | None]


@dataclass
class StepEvaluatorRegistry:
    """Evaluates a finished step with the generic rules plus the evaluator registered for its tool."""

    by_tool: dict[str, ToolEvaluator] = field(default_factory=dict)

    def register(self, tool: str) -> Callable[[ToolEvaluator], ToolEvaluator]:
        def deco(fn: ToolEvaluator) -> ToolEvaluator:
            self.by_tool[tool] = fn
            return fn

        return deco

    def evaluate(self, result: StepResult) -> Evaluation:
        concerns: list[str] = []
        highlights: list[str] = []
        if result.ok:
            highlights.append(f"{result.tool}: {result.summary[:160]}")
            fallback_used = len(result.attempts) > 1
            if fallback_used:
                failed = ", ".join(a.tool for a in result.attempts if not (a.verdict and a.verdict.ok))
                concerns.append(f"succeeded only after {failed} failed")
        else:
            for a in result.attempts:
                concerns.append(f"{a.tool}: {a.error or (a.verdict.reason if a.verdict else 'failed')}")
            if not result.attempts:
                concerns.append("no tool was tried")
        decision = "continue" if result.ok or result.status == "skipped" else "replan"
        evaluation = Evaluation(decision, tuple(concerns), tuple(highlights))
        extra = self.by_tool.get(result.tool or "") if result.tool else None
        if extra is not None:
            more = extra(result)
            if more is not None:
                evaluation = Evaluation(
                    "abort" if more.critical or more.decision == "abort" else evaluation.decision,
                    evaluation.concerns + more.concerns,
                    evaluation.highlights + more.highlights,
                    more.critical,
                )
        return evaluation


def default_evaluators() -> StepEvaluatorRegistry:
    """The generic rules plus the per-tool evaluators the built-in tool modules register."""
    from planexec.tools import builtin_evaluators

    return StepEvaluatorRegistry(builtin_evaluators())
