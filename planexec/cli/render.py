"""Showing a run as it happens: a rich live tree on a terminal, plain lines otherwise."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from planexec.events import (
    AttemptFinished,
    AttemptStarted,
    Event,
    LogMessage,
    PlanCreated,
    Replanned,
    RunAbortedEvent,
    RunStarted,
    StepFinished,
    StepStarted,
    ToolsReordered,
)
from planexec.models import Plan


def plan_table(plan: Plan) -> Table:
    """The plan as a table: step, goal, tools in order, dependencies."""
    table = Table(title="Plan", show_lines=False)
    for col in ("step", "goal", "tools (primary → fallback)", "after"):
        table.add_column(col)
    for s in plan.steps:
        tools = ", ".join(s.primary_tools) + (" → " + ", ".join(s.fallback_tools) if s.fallback_tools else "")
        table.add_row(str(s.step_num), s.goal, tools, ", ".join(map(str, s.depends_on)) or "—")
    return table


class _StepView:
    def __init__(self, num: int, goal: str) -> None:
        self.num, self.goal = num, goal
        self.status = "pending"
        self.started = 0.0
        self.duration = 0.0
        self.attempts: list[AttemptFinished] = []
        self.running_tool: str | None = None
        self.capability: Any = None
        """The stored capability the step runs (its id), if any."""


class LiveTree:
    """Event subscriber rendering steps → attempts → verdicts; on a non-TTY it prints one line per event."""

    def __init__(self, console: Console, verbose: bool = False) -> None:
        self.console = console
        self.verbose = verbose
        self.live_mode = console.is_terminal
        self.steps: dict[int, _StepView] = {}
        self.title = "planexec"
        self.notes: list[str] = []
        self._lock = threading.Lock()
        self._live: Live | None = None

    def __enter__(self) -> LiveTree:
        if self.live_mode:
            self._live = Live(self._render(), console=self.console, refresh_per_second=8, transient=False,
                              get_renderable=self._render)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop redrawing while something else uses the terminal (a question), then resume."""
        live = self._live
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            if live is not None:
                live.start()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._apply(event)
        if not self.live_mode:
            line = self._line(event)
            if line:
                self.console.print(line, markup=False)

    def _apply(self, e: Event) -> None:
        if isinstance(e, RunStarted):
            self.title = f"planexec: {e.request}"
        elif isinstance(e, PlanCreated):
            for s in e.plan.steps:
                view = self.steps.setdefault(s.step_num, _StepView(s.step_num, s.goal))
                view.capability = s.args.get("capability_id")
        elif isinstance(e, Replanned):
            for s in e.plan.steps if e.plan else ():
                self.steps.setdefault(s.step_num, _StepView(s.step_num, s.goal))
            self.notes.append(f"replanned: {e.reason}")
        elif isinstance(e, StepStarted):
            view = self.steps.setdefault(e.step_num, _StepView(e.step_num, e.goal))
            view.status, view.started = "running", time.perf_counter()
        elif isinstance(e, AttemptStarted):
            self.steps[e.step_num].running_tool = e.tool
        elif isinstance(e, AttemptFinished):
            view = self.steps[e.step_num]
            view.running_tool = None
            view.attempts.append(e)
        elif isinstance(e, StepFinished):
            view = self.steps.setdefault(e.step_num, _StepView(e.step_num, ""))
            view.status, view.duration = e.status, e.duration
        elif isinstance(e, ToolsReordered):
            self.notes.append(f"step {e.step_num}: tools reordered {list(e.after)} ({e.reason})")
        elif isinstance(e, LogMessage):
            self.notes.append(e.message)
        elif isinstance(e, RunAbortedEvent):
            self.notes.append(e.reason)

    def _render(self) -> Any:
        with self._lock:
            tree = Tree(Text(self.title, style="bold"))
            icons = {"succeeded": "[green]✓[/]", "failed": "[red]✗[/]", "skipped": "[yellow]–[/]", "pending": "·"}
            for num in sorted(self.steps):
                v = self.steps[num]
                if v.status == "running":
                    label: Any = Spinner("dots", text=Text(f"Step {num}: {v.goal}"))
                else:
                    extra = f" [dim]{v.duration:.2f}s[/]" if v.duration else ""
                    label = Text.from_markup(f"{icons.get(v.status, '·')} Step {num}: ") + Text(v.goal)
                    if v.capability:
                        label += Text.from_markup(f" [cyan]· capability {v.capability}[/]")
                    label += Text.from_markup(extra)
                node = tree.add(label)
                for a in v.attempts:
                    mark = "[green]✓[/]" if a.ok else "[red]✗[/]"
                    why = a.error or a.verdict or ""
                    node.add(Text.from_markup(f"{mark} {a.tool} [dim]{a.duration:.2f}s[/] ") +
                             Text(f"{(a.summary or '')[:90]} ({a.decided_by}: {why[:80]})"))
                if v.running_tool:
                    node.add(Spinner("dots", text=Text(f"{v.running_tool}…")))
            parts: list[Any] = [tree] + [Text(f"note: {n}", style="yellow") for n in self.notes[-5:]]
            return Group(*parts)

    def _line(self, e: Event) -> str:
        d = e.to_dict()
        if e.kind == "plan_created":
            steps = d["plan"]["steps"]
            return "plan: " + " | ".join(f"{s['step_num']}. {s['goal']} [{', '.join(s['primary_tools'])}]" for s in steps)
        if e.kind == "step_started":
            return f"step {d['step_num']}: {d['goal']}"
        if e.kind == "attempt_finished":
            mark = "ok" if d["ok"] else "FAILED"
            return f"  {d['tool']} {mark} ({d['duration']:.2f}s): {(d.get('error') or d.get('summary') or '')[:160]}"
        if e.kind == "step_finished":
            return f"step {d['step_num']} {d['status']} ({d['duration']:.2f}s)"
        if e.kind in ("replanned", "run_aborted", "tools_reordered"):
            return f"{e.kind}: {d.get('reason', '')}"
        if e.kind == "log":
            return f"{d['level']}: {d['message']}"
        return ""
