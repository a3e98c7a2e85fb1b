"""Shared pieces of the orchestration tests: a fast configuration, plan builders, recording tools."""

from __future__ import annotations

import threading
import time
from typing import Any

from planexec.config import Config
from planexec.events import Event
from planexec.tools import ToolOutput, ToolRegistry, tool
from tests.core.helpers import plan, step  # noqa: F401 - the plan builders, shared with the core tests


def config(**changes: Any) -> Config:
    """Keyword similarity, no RAG, no replanning and no outputs unless asked: deterministic and quick."""
    base: dict[str, Any] = {"embedder": "none", "rag": False, "write_outputs": False, "max_replans": 0}
    return Config.from_env(**{**base, **changes})


class Recorder:
    """An event subscriber keeping every event (thread-safe: the bus serialises delivery)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


class Calls:
    """Counts tool calls and the most calls in flight at once."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()

    def enter(self, name: str) -> None:
        with self._lock:
            self.count[name] = self.count.get(name, 0) + 1
            self.active += 1
            self.peak = max(self.peak, self.active)

    def leave(self) -> None:
        with self._lock:
            self.active -= 1


def nap_tools(calls: Calls, delay: float = 0.0) -> ToolRegistry:
    """`nap` (sleeps, then publishes a value derived from its name), `fail` (always raises)."""

    @tool(type="data")
    def nap(name: str, seconds: float = delay) -> ToolOutput:
        """Sleep a moment, then publish len(name) under the name."""
        calls.enter(name)
        try:
            time.sleep(seconds)
            return ToolOutput({"name": name}, summary=f"napped {name}", results={name: len(name)},
                              state={f"seen_{name}": True})
        finally:
            calls.leave()

    @tool(type="data")
    def fail(name: str = "") -> str:
        """Always raises."""
        calls.enter(f"fail:{name}")
        calls.leave()
        raise RuntimeError(f"{name} is broken")

    return ToolRegistry([nap, fail])
