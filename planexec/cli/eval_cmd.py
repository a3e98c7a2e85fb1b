"""`planexec eval SUITE`: run an agent task suite, show a progress bar and a summary, write four reports.

Exits 1 when the suite is below its pass threshold, so CI can gate on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from planexec.cli.common import console, handle_errors, verbose_option

if TYPE_CHECKING:
    from planexec.evals.runner import CaseResult, SuiteResult


@click.command("eval")
@click.argument("suite", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the CSV, Markdown, JSON and JUnit reports go [default: outputs/eval/<suite>].")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(min=1),
              help="Cases run at once.")
@click.option("--llm", type=click.Choice(["auto", "none", "openai", "anthropic"]), default=None,
              help="LLM backend of the agent and the llm_rubric judge [default: auto].")
@click.option("--model", default=None, help="Model name for the chosen backend.")
@click.option("--ray", "use_ray", is_flag=True, help="Run cases as Ray tasks on warm workers (needs planexec[batch]).")
@click.option("--address", default=None, help="With --ray: join this Ray cluster instead of a local Ray.")
@click.option("--no-judge-cache", is_flag=True, help="Ask the judge again instead of reusing cached verdicts.")
@verbose_option
@handle_errors
def eval_command(
    suite: Path,
    report_dir: Path | None,
    concurrency: int,
    llm: str | None,
    model: str | None,
    no_judge_cache: bool,
    use_ray: bool,
    address: str | None,
    verbose: bool,
) -> None:
    """Run every case of SUITE (.toml or .json) through the agent and score the answers."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from planexec.config import Config
    from planexec.evals import load_suite, orchestrator_runner, run_suite, write_suite_reports
    from planexec.evals.runner import ray_runner
    from planexec.llm.factory import make_llm

    loaded = load_suite(suite)
    out_dir = report_dir or Path("outputs") / "eval" / loaded.name
    config = Config.from_env(llm=llm, model=model, output_root=out_dir / "runs")
    client = make_llm(config)
    cache_dir = None if no_judge_cache else config.home / "cache"
    settings = {k: v for k, v in {"llm": llm, "model": model, "output_root": config.output_root.resolve()}.items() if v}
    runner = ray_runner(settings, address) if use_ray else orchestrator_runner(client, config)
    if use_ray:  # Ray schedules the cases; the driver's threads only wait for them
        concurrency = max(concurrency, len(loaded.cases))

    err = console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as progress:
        task = progress.add_task(f"eval {loaded.name}", total=len(loaded.cases))

        def advance(case_result: CaseResult) -> None:
            progress.update(task, advance=1,
                            description=f"eval {loaded.name}: {case_result.case.id} {case_result.outcome}")

        result = run_suite(loaded, runner, concurrency=concurrency,
                           judge=client, cache_dir=cache_dir, embedder=config.embedder, on_case=advance)
    paths = write_suite_reports(result, out_dir)
    _print_summary(result, paths)
    if not result.passed:
        raise SystemExit(1)


def _print_summary(result: SuiteResult, paths: dict[str, Path]) -> None:
    from rich.table import Table

    from planexec.evals.reporting import summary_rows

    out = console()
    table = Table(title=f"suite {result.suite.name}")
    for col in ("case", "outcome", "score", "threshold", "seconds"):
        table.add_column(col, justify="left" if col in ("case", "outcome") else "right")
    colour = {"PASS": "green", "FAIL": "red", "ERROR": "yellow"}
    for row in summary_rows(result):
        table.add_row(row[0], f"[{colour[row[1]]}]{row[1]}[/]", *row[2:])
    out.print(table)
    for name, value in result.metrics().items():
        out.print(f"metric {name}: {value:.3f}")
    for c in result.cases:
        if c.error is not None:
            out.print(f"[yellow]error[/] {c.case.id}: {c.error}")
        else:
            for d in c.details:
                if not d.get("ok"):
                    out.print(f"[red]failed[/] {c.case.id}: {d.get('point')}: {d.get('note')}")
    verdict = "[green]PASSED[/]" if result.passed else "[red]FAILED[/]"
    out.print(
        f"{verdict}: {result.count('PASS')}/{len(result.cases)} cases passed "
        f"({result.pass_rate:.0%}, threshold {result.suite.threshold:.0%}), "
        f"{result.count('ERROR')} error(s), judge calls {result.judge_calls}, {result.seconds:.1f} s"
    )
    out.print("Reports: " + ", ".join(str(p) for p in paths.values()))


COMMANDS = [eval_command]
