"""What a run records as it goes: every tool attempt in order, and every replan it tried.

Both are kept typed in the run state; `RunResult` and the checkpoint carry their `to_dict()` form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from planexec.plan import PlanStep


@dataclass(frozen=True)
class ExecutionEntry:
    """One tool attempt, in the order attempts finished."""

    step: int
    tool: str
    status: Literal["success", "error"]
    error: str | None
    """The tool's error, or the verifier's reason when the output was rejected."""
    auto_fixed: bool
    duration: float

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "tool": self.tool, "status": self.status, "error": self.error,
                "auto_fixed": self.auto_fixed, "duration": self.duration}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ExecutionEntry:
        return cls(int(d["step"]), str(d["tool"]), d["status"], d.get("error"), bool(d.get("auto_fixed")),
                   float(d.get("duration") or 0.0))


@dataclass(frozen=True)
class ReplanRecord:
    """One replan after a failed step: taken (new steps, substitutes) or why not (skipped, error, rejected)."""

    failed_step: int
    reason: str
    skipped: str | None = None
    """Why no replan was tried at all (the step was reading the user's own data)."""
    avoid: tuple[str, ...] | None = None
    """Tools and capability ids the planner was told to leave out."""
    error: str | None = None
    """The planner failed or its revised plan was invalid."""
    rejected: str | None = None
    """No new step passed the coverage decision for the failed step's goal."""
    new_steps: tuple[PlanStep, ...] | None = None
    substitutes: tuple[int, ...] | None = None
    """New steps that passed the coverage decision and replace the failed one."""

    @property
    def taken(self) -> bool:
        """Whether the revised plan replaced the old one."""
        return bool(self.new_steps) and bool(self.substitutes)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"failed_step": self.failed_step, "reason": self.reason}
        for key, value in (("skipped", self.skipped), ("avoid", self.avoid), ("error", self.error),
                           ("rejected", self.rejected)):
            if value is not None:
                d[key] = list(value) if isinstance(value, tuple) else value
        if self.new_steps is not None:
            d["new_steps"] = [s.to_dict() for s in self.new_steps]
        if self.substitutes is not None:
            d["substitutes"] = list(self.substitutes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReplanRecord:
        steps = d.get("new_steps")
        avoid, subs = d.get("avoid"), d.get("substitutes")
        return cls(int(d["failed_step"]), str(d.get("reason", "")), d.get("skipped"),
                   tuple(avoid) if avoid is not None else None, d.get("error"), d.get("rejected"),
                   tuple(PlanStep.from_dict(s) for s in steps) if steps is not None else None,
                   tuple(int(x) for x in subs) if subs is not None else None)
