"""`planexec run "REQUEST"` and `planexec resume RUN_DIR`."""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from planexec.cli.common import (
    RunWatcher,
    console,
    fail,
    handle_errors,
    interrupted,
    verbose_option,
)
from planexec.config import BACKENDS, Config

if TYPE_CHECKING:  # imported where used: a run prints its first line before these load (0.3 s)
    from planexec.cli.render import LiveTree
    from planexec.models import Plan, RunResult
    from planexec.tools import ToolRegistry


class _Approver:
    """Asks on the terminal before the plan runs and before each tool that requires approval.

    The live step tree is paused while a question is open; parallel steps ask one at a time.
    Refuses up front (exit 2) when stdin is not a terminal, instead of hanging on a prompt.
    """

    def __init__(self, out: Any) -> None:
        if not sys.stdin.isatty():
            fail("--approve needs an interactive terminal to ask you, and stdin is not one; "
                 "run without --approve, or pass approve_plan= from Python", 2)
        self.out = out
        self.tree: LiveTree | None = None
        self._lock = threading.Lock()

    def _ask(self, show: Any, question: str) -> bool:
        with self._lock, (self.tree.paused() if self.tree is not None else nullcontext()):
            try:
                self.out.print(show)
                return click.confirm(question, default=True, err=True)
            except click.Abort:
                return False

    def plan(self, plan: Plan) -> Plan | None:
        from planexec.cli.render import plan_table

        return plan if self._ask(plan_table(plan), "Run this plan?") else None

    def tool(self, name: str, args: dict[str, Any]) -> bool:
        from planexec.serialize import summarize

        shown = ", ".join(f"{k}={summarize(v, 80)}" for k, v in args.items()) or "no arguments"
        return self._ask(f"Tool [bold]{name}[/] asks to run with {shown}", f"Run {name}?")


def _print_result(result: RunResult, out: Any) -> None:
    from planexec.serialize import summarize

    out.print()
    out.rule(f"[bold]{result.status}[/]")
    out.print(result.answer, markup=False)
    scalars = {k: v for k, v in result.results.items() if isinstance(v, (int, float, str, bool)) and k != "report"}
    if scalars:
        out.print()
        out.print("Key numbers: " + ", ".join(f"{k}={summarize(v, 60)}" for k, v in list(scalars.items())[:10]),
                  markup=False)
    for err in result.errors:
        out.print(f"[red]error:[/] {err}", highlight=False)
    for warning in result.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if result.output_dir:
        out.print()
        out.print(f"Report: {Path(result.output_dir) / 'report.md'}", markup=False)
        figures = [a for a in result.artifacts if a.endswith(".png")]
        if figures:
            out.print(f"Figures: {', '.join(figures)}", markup=False)


def _json(result: RunResult) -> str:
    """report.json when the run wrote one (large arrays as references to arrays/*.npy), else the whole RunResult."""
    report = Path(result.output_dir) / "report.json" if result.output_dir else None
    if report is not None and report.is_file():
        return report.read_text(encoding="utf-8")
    return json.dumps(result.to_dict(), indent=2)


EXIT_CODES = {"succeeded": 0, "rejected": 3, "partial": 4, "not_covered": 5}
"""Exit code per run status (the team's table; README, CLI section); anything else is 1, usage errors 2."""


def _exit_code(result: RunResult) -> int:
    return EXIT_CODES.get(result.status, 1)


@click.command()
@click.argument("request")
@click.option("--file", "files", multiple=True, type=click.Path(), help="An input file (repeatable).")
@click.option("--images", type=click.Path(), help="A folder of frames, a TIFF, a .npy or an HDF5 image stack "
              "(a file too large to load is read from disk; --param stream=true/false decides).")
@click.option("--llm", type=click.Choice(BACKENDS), default=None, help="LLM backend (default: auto).")
@click.option("--model", default=None, help="Model name for the backend.")
@click.option("--base-url", default=None, help="OpenAI-compatible server URL (Ollama, vLLM, llama.cpp).")
@click.option("--plan", "plan_file", type=click.Path(exists=True, dir_okay=False), help="Run this plan (JSON) instead of planning.")
@click.option("--approve", is_flag=True, help="Show the plan and ask before running it.")
@click.option("--json", "as_json", is_flag=True,
              help="Print only the run's JSON on stdout (report.json: arrays referenced in arrays/*.npy).")
@click.option("--output", type=click.Path(file_okay=False), default=None, help="Folder for run outputs (default: outputs/).")
@click.option("--param", "param_pairs", multiple=True, metavar="KEY=VALUE",
              help="An analysis parameter, e.g. diameter=10, fs=30, tau=1.0, neuropil_coefficient=0.7 (repeatable).")
@click.option("--fs", type=float, default=None, help="Frame rate in Hz (overrides the movie's TIFF tags).")
@click.option("--pixel-size", type=float, default=None, help="Pixel size in µm (overrides the movie's TIFF tags).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Deadline of the whole run in seconds (default 600, PLANEXEC_TIMEOUT): no step or model "
                   "call starts after it; the run ends partial (exit 4) or failed (exit 1) and can be resumed.")
@verbose_option
@handle_errors
def run(request: str, files: tuple[str, ...], images: str | None, llm: str | None, model: str | None,
        base_url: str | None, plan_file: str | None, approve: bool, as_json: bool, output: str | None,
        param_pairs: tuple[str, ...], fs: float | None, pixel_size: float | None, timeout: float | None,
        verbose: bool) -> None:
    """Plan REQUEST, run each step with fallback tools and verification, and answer."""
    if not as_json:  # on screen within 0.1 s; the library, the sandbox and the tree follow
        click.echo(f"planexec: starting ({'sandbox, ' if images else ''}tools and library loading)")
    if images:
        from planexec.sandbox.forkserver import prewarm

        prewarm()  # calcium runs use the sandbox: its imports overlap planning
    from planexec.models import Plan
    from planexec.orchestrator import Orchestrator
    from planexec.params import from_pairs

    params = from_pairs(param_pairs)
    for name, value in (("fs", fs), ("pixel_size", pixel_size)):  # shorthands for --param fs=... etc.
        if value is not None:
            if not value > 0:
                fail(f"--{name.replace('_', '-')} {value:g} must be a positive number (e.g. --fs 30, --pixel-size 0.8)", 2)
            params[name] = value
    config = Config.from_env(llm=llm, model=model, base_url=base_url, output_root=Path(output) if output else None,
                             timeout=timeout)
    plan = None
    if plan_file:
        try:
            plan = Plan.from_dict(json.loads(Path(plan_file).read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            fail(f"{plan_file} is not valid JSON ({exc}); a plan is a list of steps or {{\"steps\": [...]}}")
    out = console(stderr=as_json)
    approver = _Approver(out) if approve else None
    asks: dict[str, Any] = {"approve_plan": approver.plan, "approve_tool": approver.tool} if approver else {}

    def start(on_event: Any) -> RunResult:
        orch = Orchestrator.from_config(config)
        return orch.run(request, plan=plan, files=files, images=images, on_event=on_event, params=params, **asks)

    _show(start, out, approver, as_json, verbose, to_json=_json,
           title=f"planexec: {request} (loading tools and library)")


def _show(start: Callable[[Any], RunResult], out: Any, approver: _Approver | None, as_json: bool, verbose: bool,
          to_json: Callable[[RunResult], str], title: str | None = None, run_dir: str | None = None) -> None:
    """Run `start(on_event)` under the live tree (quietly with --json), print the result, exit with its code.

    Ctrl-C names the run's folder (from its run_started event, else `run_dir`) and how to resume it.
    """
    from planexec.cli.render import LiveTree

    watcher = RunWatcher()
    try:
        if as_json:
            result = start(watcher)
            click.echo(to_json(result))
        else:
            with LiveTree(out, verbose) as tree:
                if title:
                    tree.title = title
                if approver is not None:
                    approver.tree = tree
                watcher.inner = tree
                result = start(watcher)
            _print_result(result, out)
    except KeyboardInterrupt:
        interrupted(watcher.run_dir or run_dir)
    raise SystemExit(_exit_code(result))


def _registry(modules: tuple[str, ...]) -> ToolRegistry:
    """The built-in tools plus each module's `TOOLS` list (the tools a run was started with)."""
    from planexec.errors import UsageError
    from planexec.tools import default_registry

    registry = default_registry()
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise UsageError(f"cannot import tool module {name!r} ({exc}); check the name and PYTHONPATH") from None
        tools = getattr(module, "TOOLS", None)
        if not isinstance(tools, (list, tuple)):
            raise UsageError(f"tool module {name!r} has no TOOLS list; define TOOLS = [your tools]")
        for t in tools:
            registry.register(t, replace=True)
    return registry


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--tools", "tool_modules", multiple=True, metavar="MODULE",
              help="Also load the tools in MODULE's TOOLS list, as the run had them (repeatable).")
@click.option("--approve", is_flag=True, help="Ask before each tool that requires approval.")
@click.option("--json", "as_json", is_flag=True, help="Print only the RunResult JSON on stdout.")
@verbose_option
@handle_errors
def resume(run_dir: str, tool_modules: tuple[str, ...], approve: bool, as_json: bool, verbose: bool) -> None:
    """Continue an interrupted run from its last finished step (RUN_DIR is its outputs/<timestamp> folder)."""
    from planexec.orchestrator import Orchestrator

    out = console(stderr=as_json)
    approver = _Approver(out) if approve else None
    orch = Orchestrator.from_config(Config.from_env(), tools=_registry(tool_modules))

    def start(on_event: Any) -> RunResult:
        return orch.resume(run_dir, on_event=on_event, approve_tool=approver.tool if approver else None)

    _show(start, out, approver, as_json, verbose, run_dir=run_dir,
          to_json=lambda result: json.dumps(result.to_dict(), indent=2))


COMMANDS = [run, resume]
