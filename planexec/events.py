"""Run events: dataclasses with a `kind`, emitted by the orchestrator to subscribers.

The CLI's live tree, logging, checkpoints and evals subscribe; the core never prints.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from planexec.serialize import to_jsonable

if TYPE_CHECKING:
    from planexec.plan import Plan


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"
    time: float = field(default_factory=time.time, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        data = {k: to_jsonable(v) for k, v in self.__dict__.items()}
        return {"kind": self.kind, **data}


@dataclass(frozen=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    request: str
    output_dir: str | None = None


@dataclass(frozen=True)
class ContextReady(Event):
    kind: ClassVar[str] = "context_ready"
    inputs: dict[str, Any]


@dataclass(frozen=True)
class PlanCreated(Event):
    kind: ClassVar[str] = "plan_created"
    plan: Plan
    planner: str = ""


@dataclass(frozen=True)
class PlanApproved(Event):
    kind: ClassVar[str] = "plan_approved"
    edited: bool = False


@dataclass(frozen=True)
class StepStarted(Event):
    kind: ClassVar[str] = "step_started"
    step_num: int
    goal: str
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolsReordered(Event):
    kind: ClassVar[str] = "tools_reordered"
    step_num: int
    before: tuple[str, ...]
    after: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True)
class AttemptStarted(Event):
    kind: ClassVar[str] = "attempt_started"
    step_num: int
    tool: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AttemptFinished(Event):
    kind: ClassVar[str] = "attempt_finished"
    step_num: int
    tool: str
    ok: bool
    summary: str = ""
    error: str | None = None
    verdict: str = ""
    decided_by: str = ""
    duration: float = 0.0


@dataclass(frozen=True)
class StepFinished(Event):
    kind: ClassVar[str] = "step_finished"
    step_num: int
    status: str
    tool: str | None = None
    summary: str = ""
    duration: float = 0.0
    decision: str = "continue"


@dataclass(frozen=True)
class Replanned(Event):
    kind: ClassVar[str] = "replanned"
    failed_step: int
    reason: str
    plan: Plan | None = None
    """The revised plan."""


@dataclass(frozen=True)
class RunAbortedEvent(Event):
    kind: ClassVar[str] = "run_aborted"
    reason: str


@dataclass(frozen=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    status: str
    answer: str = ""
    output_dir: str | None = None
    duration: float = 0.0


@dataclass(frozen=True)
class LogMessage(Event):
    """A warning or note from a component (a skipped frame, a rebuilt index)."""

    kind: ClassVar[str] = "log"
    level: str
    message: str


Subscriber = Callable[[Event], None]


class EventBus:
    """Delivers events to subscribers in order, one at a time, and keeps them for the report."""

    def __init__(self, subscribers: list[Subscriber] | None = None) -> None:
        self.subscribers = list(subscribers or [])
        self.history: list[Event] = []
        self._lock = threading.Lock()

    def subscribe(self, fn: Subscriber) -> None:
        self.subscribers.append(fn)

    def emit(self, event: Event) -> None:
        with self._lock:
            self.history.append(event)
            for fn in self.subscribers:
                fn(event)
