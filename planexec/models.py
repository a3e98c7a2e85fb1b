"""Attempts, verdicts, step and run results: the typed objects a run produces (plans: planexec.plan).

Structured outputs are stored whole; `summary` fields exist for display and prompts only.
Everything here round-trips through JSON via `to_dict()` / `from_dict()`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from planexec.plan import Plan, PlanStep
from planexec.serialize import to_jsonable

StepStatus = Literal["pending", "succeeded", "failed", "skipped"]
RunStatus = Literal["succeeded", "partial", "failed", "aborted", "rejected", "not_covered"]


@dataclass(frozen=True)
class Verdict:
    """Whether an attempt achieved its step, why, and who decided (heuristic, llm, tool)."""

    ok: bool
    reason: str
    decided_by: str = "heuristic"
    undecided: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(**d)


@dataclass(frozen=True)
class ToolAttempt:
    """One tool tried for one step: its input, whole output, error and verdict."""

    tool: str
    input: dict[str, Any]
    ok: bool
    output: Any = None
    summary: str = ""
    error: str | None = None
    verdict: Verdict | None = None
    duration: float = 0.0
    artifacts: tuple[str, ...] = ()
    auto_fixed: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.artifacts, tuple):
            object.__setattr__(self, "artifacts", tuple(self.artifacts))

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "input": to_jsonable(self.input),
            "ok": self.ok,
            "output": to_jsonable(self.output),
            "summary": self.summary,
            "error": self.error,
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "duration": self.duration,
            "artifacts": list(self.artifacts),
            "auto_fixed": self.auto_fixed,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolAttempt:
        return cls(
            tool=d["tool"],
            input=d.get("input") or {},
            ok=bool(d["ok"]),
            output=d.get("output"),
            summary=d.get("summary", ""),
            error=d.get("error"),
            verdict=Verdict.from_dict(d["verdict"]) if d.get("verdict") else None,
            duration=float(d.get("duration", 0.0)),
            artifacts=tuple(d.get("artifacts") or ()),
            auto_fixed=bool(d.get("auto_fixed", False)),
        )


@dataclass(frozen=True)
class Evaluation:
    """The step evaluator's judgement: continue, replan or abort, with its notes."""

    decision: Literal["continue", "replan", "abort"] = "continue"
    concerns: tuple[str, ...] = ()
    highlights: tuple[str, ...] = ()
    critical: bool = False

    def __post_init__(self) -> None:
        for name in ("concerns", "highlights"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "concerns": list(self.concerns),
            "highlights": list(self.highlights),
            "critical": self.critical,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Evaluation:
        return cls(
            decision=d.get("decision", "continue"),
            concerns=tuple(d.get("concerns") or ()),
            highlights=tuple(d.get("highlights") or ()),
            critical=bool(d.get("critical", False)),
        )


@dataclass(frozen=True)
class StepResult:
    """What a step ended as: every attempt, the winning output (whole) and its summary."""

    step: PlanStep
    status: StepStatus
    attempts: tuple[ToolAttempt, ...] = ()
    output: Any = None
    result_type: str = "none"
    summary: str = ""
    evaluation: Evaluation | None = None
    tool: str | None = None
    duration: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.attempts, tuple):
            object.__setattr__(self, "attempts", tuple(self.attempts))

    @property
    def ok(self) -> bool:
        return self.status == "succeeded"

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step.to_dict(),
            "status": self.status,
            "attempts": [a.to_dict() for a in self.attempts],
            "output": to_jsonable(self.output),
            "result_type": self.result_type,
            "summary": self.summary,
            "evaluation": self.evaluation.to_dict() if self.evaluation else None,
            "tool": self.tool,
            "duration": self.duration,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StepResult:
        return cls(
            step=PlanStep.from_dict(d["step"]),
            status=d["status"],
            attempts=tuple(ToolAttempt.from_dict(a) for a in d.get("attempts") or ()),
            output=d.get("output"),
            result_type=d.get("result_type", "none"),
            summary=d.get("summary", ""),
            evaluation=Evaluation.from_dict(d["evaluation"]) if d.get("evaluation") else None,
            tool=d.get("tool"),
            duration=float(d.get("duration", 0.0)),
        )


@dataclass
class Usage:
    """LLM calls and tokens, accumulated per client and per run."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_chars: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.prompt_chars += other.prompt_chars

    def minus(self, other: Usage) -> Usage:
        return Usage(
            self.calls - other.calls,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.prompt_chars - other.prompt_chars,
        )

    def copy(self) -> Usage:
        return dataclasses.replace(self)

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclass
class RunResult:
    """Everything a run produced. `results` holds the machine-readable key figures."""

    request: str
    plan: Plan | None
    steps: list[StepResult]
    answer: str
    status: RunStatus
    results: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    errors: list[str] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    output_dir: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    replans: list[dict[str, Any]] = field(default_factory=list)
    execution_sequence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "succeeded"

    def step_result(self, num: int) -> StepResult:
        for s in self.steps:
            if s.step.step_num == num:
                return s
        raise KeyError(f"no result for step {num}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "plan": self.plan.to_dict() if self.plan else None,
            "steps": [s.to_dict() for s in self.steps],
            "answer": self.answer,
            "status": self.status,
            "results": to_jsonable(self.results),
            "usage": self.usage.to_dict(),
            "errors": list(self.errors),
            "artifacts": list(self.artifacts),
            "output_dir": self.output_dir,
            "timings": dict(self.timings),
            "replans": to_jsonable(self.replans),
            "execution_sequence": to_jsonable(self.execution_sequence),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunResult:
        return cls(
            request=d["request"],
            plan=Plan.from_dict(d["plan"]) if d.get("plan") else None,
            steps=[StepResult.from_dict(s) for s in d.get("steps") or ()],
            answer=d.get("answer", ""),
            status=d["status"],
            results=d.get("results") or {},
            usage=Usage(**(d.get("usage") or {})),
            errors=list(d.get("errors") or ()),
            artifacts=list(d.get("artifacts") or ()),
            output_dir=d.get("output_dir"),
            timings=dict(d.get("timings") or {}),
            replans=list(d.get("replans") or ()),
            execution_sequence=list(d.get("execution_sequence") or ()),
        )
