"""`planexec batch REQUEST --images-glob 'sessions/*/'`: one request over many recordings on Ray.

Exit codes: 0 every recording succeeded (or partial); 4 some recordings failed, errored or
crashed (their rows say why); 1 none finished; 2 usage error, including Ray not installed.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from planexec.cli.common import console, handle_errors, verbose_option
from planexec.config import BACKENDS


@click.command("batch")
@click.argument("request")
@click.option("--images-glob", default=None, help="Glob of recordings: folders of frames, TIFFs or .npy stacks.")
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with an images column (other columns are copied to each row).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Batch folder [default: outputs/batch-<time>]; running again with the same folder resumes.")
@click.option("--address", default=None, help="Join this Ray cluster (e.g. 10.0.0.1:6379) instead of a local Ray.")
@click.option("--num-cpus", type=click.IntRange(min=1), default=None, help="CPUs of the embedded local Ray [default: all].")
@click.option("--library-remote", default=None,
              help="Bare git repository (path on shared storage) or git:// URL every node syncs its capability library with.")
@click.option("--retries", default=2, show_default=True, type=click.IntRange(min=0), help="Reruns of a recording whose worker died.")
@click.option("--warmup", default=0, show_default=True, type=click.IntRange(min=0),
              help="Recordings run first, alone, so capabilities they create are shared before the rest start.")
@click.option("--llm", type=click.Choice(BACKENDS), default=None, help="LLM backend of every run (default: auto).")
@click.option("--model", default=None, help="Model name for the backend.")
@verbose_option
@handle_errors
def batch(request: str, images_glob: str | None, manifest: Path | None, output: Path | None, address: str | None,
          num_cpus: int | None, library_remote: str | None, retries: int, warmup: int, llm: str | None,
          model: str | None, verbose: bool) -> None:
    """Run REQUEST on every recording as a Ray task; write one row per recording and a batch report."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from planexec.batch import BatchJob, BatchRow, discover, require_ray, run_batch
    from planexec.config import Config

    require_ray()
    recordings = discover(images_glob, manifest)
    default_root = Config.from_env().output_root
    folder = (output or default_root / f"batch-{datetime.now().strftime('%Y%m%d-%H%M%S')}").resolve()
    settings = {k: v for k, v in {"llm": llm, "model": model}.items() if v is not None}
    job = BatchJob(request, folder, settings, library_remote, retries, warmup)
    err = console(stderr=True)
    counts = {"ok": 0, "failed": 0}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True) as progress:
        task = progress.add_task(f"batch: {len(recordings)} recordings", total=len(recordings))

        def on_row(row: BatchRow, done: int, total: int) -> None:
            counts["ok" if row.status in ("succeeded", "partial") else "failed"] += 1
            progress.update(task, completed=done,
                            description=f"batch: {counts['ok']} ok, {counts['failed']} failed, last {row.name} {row.status}")

        result = run_batch(job, recordings, address=address, num_cpus=num_cpus, on_row=on_row)
    out = console()
    n = len(result.rows)
    ok = sum(r.status in ("succeeded", "partial") for r in result.rows)
    out.print(f"{ok}/{n} recordings finished ({result.skipped} from an earlier run) in {result.seconds:.1f} s")
    for r in result.rows:
        if r.status not in ("succeeded", "partial"):
            out.print(f"[red]{r.status}[/] {r.name}: {r.error}", highlight=False)
    out.print("Files: " + ", ".join(str(p) for p in result.files.values()), markup=False)
    raise SystemExit(0 if ok == n else (4 if ok else 1))


COMMANDS = [batch]
