"""`planexec run "REQUEST"` and `planexec resume RUN_DIR`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from planexec.cli.common import console, fail, handle_errors, verbose_option
from planexec.cli.render import LiveTree, plan_table
from planexec.config import BACKENDS, Config
from planexec.models import Plan, RunResult
from planexec.orchestrator import Orchestrator
from planexec.serialize import summarize


def _approver(out: Any) -> Any:
    """Ask on the terminal whether to run the plan; refuse clearly when nobody can answer."""
    if not sys.stdin.isatty():
        fail("--approve needs an interactive terminal to ask you; run without --approve, "
             "or pass approve_plan= from Python", 2)

    def approve(plan: Plan) -> Plan | None:
        out.print(plan_table(plan))
        return plan if click.confirm("Run this plan?", default=True, err=True) else None

    return approve


def _print_result(result: RunResult, out: Any) -> None:
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
    if result.output_dir:
        out.print()
        out.print(f"Report: {Path(result.output_dir) / 'report.md'}", markup=False)
        figures = [a for a in result.artifacts if a.endswith(".png")]
        if figures:
            out.print(f"Figures: {', '.join(figures)}", markup=False)


def _exit_code(result: RunResult) -> int:
    return {"succeeded": 0, "partial": 0, "rejected": 3}.get(result.status, 1)


@click.command()
@click.argument("request")
@click.option("--file", "files", multiple=True, type=click.Path(), help="An input file (repeatable).")
@click.option("--images", type=click.Path(), help="A folder of frames, a TIFF or a .npy image stack.")
@click.option("--llm", type=click.Choice(BACKENDS), default=None, help="LLM backend (default: auto).")
@click.option("--model", default=None, help="Model name for the backend.")
@click.option("--base-url", default=None, help="OpenAI-compatible server URL (Ollama, vLLM, llama.cpp).")
@click.option("--plan", "plan_file", type=click.Path(exists=True, dir_okay=False), help="Run this plan (JSON) instead of planning.")
@click.option("--approve", is_flag=True, help="Show the plan and ask before running it.")
@click.option("--json", "as_json", is_flag=True, help="Print only the RunResult JSON on stdout.")
@click.option("--output", type=click.Path(file_okay=False), default=None, help="Folder for run outputs (default: outputs/).")
@verbose_option
@handle_errors
def run(request: str, files: tuple[str, ...], images: str | None, llm: str | None, model: str | None,
        base_url: str | None, plan_file: str | None, approve: bool, as_json: bool, output: str | None,
        verbose: bool) -> None:
    """Plan REQUEST, run each step with fallback tools and verification, and answer."""
    config = Config.from_env(llm=llm, model=model, base_url=base_url, output_root=Path(output) if output else None)
    plan = None
    if plan_file:
        try:
            plan = Plan.from_dict(json.loads(Path(plan_file).read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            fail(f"{plan_file} is not valid JSON ({exc}); a plan is a list of steps or {{\"steps\": [...]}}")
    out = console(stderr=as_json)
    orch = Orchestrator.from_config(config)
    approver = _approver(out) if approve else None
    if as_json:
        result = orch.run(request, plan=plan, files=files, images=images, approve_plan=approver)
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        with LiveTree(out, verbose) as tree:
            result = orch.run(request, plan=plan, files=files, images=images, on_event=tree, approve_plan=approver)
        _print_result(result, out)
    raise SystemExit(_exit_code(result))


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print only the RunResult JSON on stdout.")
@verbose_option
@handle_errors
def resume(run_dir: str, as_json: bool, verbose: bool) -> None:
    """Continue an interrupted run from its last finished step."""
    orch = Orchestrator.from_config(Config.from_env())
    out = console(stderr=as_json)
    if as_json:
        result = orch.resume(run_dir)
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        with LiveTree(out, verbose) as tree:
            result = orch.resume(run_dir, on_event=tree)
        _print_result(result, out)
    raise SystemExit(_exit_code(result))


COMMANDS = [run, resume]
