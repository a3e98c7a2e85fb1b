"""Plans, steps, attempts, verdicts and results: the typed objects every part exchanges.

Structured outputs are stored whole; `summary` fields exist for display and prompts only.
Everything here round-trips through JSON via `to_dict()` / `from_dict()`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from planexec.errors import PlanValidationError
from planexec.serialize import to_jsonable

StepStatus = Literal["pending", "succeeded", "failed", "skipped"]
RunStatus = Literal["succeeded", "partial", "failed", "aborted", "rejected"]


@dataclass(frozen=True)
class PlanStep:
    """One unit of work: a goal, the tools to try in order, and how to tell it worked."""

    step_num: int
    goal: str
    primary_tools: tuple[str, ...]
    fallback_tools: tuple[str, ...] = ()
    success_criteria: str = ""
    context: str = ""
    depends_on: tuple[int, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    args: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    """Arguments fixed by the planner; the input generator fills in the rest."""

    @property
    def tools(self) -> tuple[str, ...]:
        """Every tool in the order it is tried."""
        return self.primary_tools + tuple(t for t in self.fallback_tools if t not in self.primary_tools)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step_num": self.step_num,
            "goal": self.goal,
            "primary_tools": list(self.primary_tools),
            "fallback_tools": list(self.fallback_tools),
            "success_criteria": self.success_criteria,
            "context": self.context,
            "depends_on": list(self.depends_on),
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "args": to_jsonable(self.args),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlanStep:
        """Build a step from a planner's or a file's dict, with a clear error on bad fields."""
        if not isinstance(d, dict):
            raise PlanValidationError(f"a plan step must be an object, got {type(d).__name__}")
        missing = [k for k in ("step_num", "goal", "primary_tools") if k not in d]
        if missing:
            raise PlanValidationError(
                f"plan step {d.get('step_num', '?')} lacks {', '.join(missing)}"
            )

        def _names(key: str) -> tuple[str, ...]:
            v = d.get(key) or ()
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, (list, tuple)):
                raise PlanValidationError(f"plan step {d.get('step_num', '?')}: {key} must be a list of names")
            return tuple(str(x) for x in v)

        def _num(x: Any) -> int:
            if isinstance(x, bool) or (isinstance(x, float) and not x.is_integer()):
                raise ValueError(f"{x!r} is not a whole number")
            return int(x)

        raw_deps = d.get("depends_on") or ()
        if isinstance(raw_deps, (int, str)) and not isinstance(raw_deps, bool):
            raw_deps = [raw_deps]
        if not isinstance(raw_deps, (list, tuple)):
            raise PlanValidationError(f"plan step {d.get('step_num', '?')}: depends_on must be a list of step numbers")
        if not isinstance(d.get("args") or {}, dict):
            raise PlanValidationError(f"plan step {d.get('step_num', '?')}: args must be an object")
        try:
            step_num = _num(d["step_num"])
            depends = tuple(_num(x) for x in raw_deps)
        except (TypeError, ValueError) as exc:
            raise PlanValidationError(f"plan step numbers must be integers: {exc}") from None
        return cls(
            step_num=step_num,
            goal=str(d["goal"]),
            primary_tools=_names("primary_tools"),
            fallback_tools=_names("fallback_tools"),
            success_criteria=str(d.get("success_criteria") or ""),
            context=str(d.get("context") or ""),
            depends_on=depends,
            inputs=_names("inputs"),
            outputs=_names("outputs"),
            args=dict(d.get("args") or {}),
        )


@dataclass(frozen=True)
class Plan:
    """An ordered list of steps forming a DAG; `validate()` names every problem it finds."""

    steps: tuple[PlanStep, ...]
    rationale: str = ""
    planner: str = ""

    def step(self, num: int) -> PlanStep:
        for s in self.steps:
            if s.step_num == num:
                return s
        raise KeyError(f"no step {num} in plan (steps: {[s.step_num for s in self.steps]})")

    def problems(self, known_tools: set[str] | None = None) -> list[str]:
        """Every validation problem as one sentence each; empty when the plan is sound."""
        out: list[str] = []
        if not self.steps:
            return ["the plan has no steps"]
        nums = [s.step_num for s in self.steps]
        dupes = sorted({n for n in nums if nums.count(n) > 1})
        if dupes:
            out.append(f"duplicate step numbers: {dupes}")
        numset = set(nums)
        for s in self.steps:
            if not s.goal.strip():
                out.append(f"step {s.step_num} has an empty goal")
            if not s.tools:
                out.append(f"step {s.step_num} names no tool")
            for d in s.depends_on:
                if d not in numset:
                    out.append(f"step {s.step_num} depends on step {d}, which does not exist")
                elif d == s.step_num:
                    out.append(f"step {s.step_num} depends on itself")
            if known_tools is not None:
                unknown = [t for t in s.tools if t not in known_tools]
                if unknown:
                    out.append(
                        f"step {s.step_num} uses unknown tool(s) {unknown}; "
                        f"known tools: {sorted(known_tools)}"
                    )
        cycle = self.find_cycle()
        if cycle:
            out.append("dependency cycle: " + " -> ".join(str(n) for n in cycle))
        return out

    def validate(self, known_tools: set[str] | None = None) -> Plan:
        """Return self when sound, else raise `PlanValidationError` listing the problems."""
        problems = self.problems(known_tools)
        if problems:
            raise PlanValidationError("invalid plan: " + "; ".join(problems), problems=problems)
        return self

    def find_cycle(self) -> list[int] | None:
        """A dependency cycle as a closed path of step numbers, or None."""
        deps: dict[int, list[int]] = {}
        for s in self.steps:  # duplicate numbers (reported separately) pool their dependencies
            deps.setdefault(s.step_num, []).extend(s.depends_on)
        color: dict[int, int] = {}
        stack: list[int] = []

        def visit(n: int) -> list[int] | None:
            color[n] = 1
            stack.append(n)
            for m in deps.get(n, []):
                if m not in deps:
                    continue
                if color.get(m) == 1:
                    return stack[stack.index(m):] + [m]
                if color.get(m) is None:
                    found = visit(m)
                    if found:
                        return found
            stack.pop()
            color[n] = 2
            return None

        for n in deps:
            if color.get(n) is None:
                found = visit(n)
                if found:
                    return found
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": [s.to_dict() for s in self.steps],
            "rationale": self.rationale,
            "planner": self.planner,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any] | list[Any]) -> Plan:
        """Accept `{"steps": [...]}` or a bare list of steps (the seed's format)."""
        if isinstance(d, list):
            d = {"steps": d}
        if not isinstance(d, dict) or not isinstance(d.get("steps"), list):
            raise PlanValidationError('a plan must be a list of steps or {"steps": [...]}')
        return cls(
            steps=tuple(PlanStep.from_dict(s) for s in d["steps"]),
            rationale=str(d.get("rationale") or ""),
            planner=str(d.get("planner") or ""),
        )


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
