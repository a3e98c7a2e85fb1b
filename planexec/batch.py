"""`planexec batch`: one request over many recordings, each an `Orchestrator().run()` as a Ray task.

Ray is optional (`pip install 'planexec[batch]'`). The driver submits one task per recording,
each declaring the memory its movie needs; Ray reuses worker processes between tasks, and the
embedding model, the capability store and the sandbox's fork server are process-wide caches,
so only a worker's first recording pays the cold start. A task never raises: a run that fails
or raises becomes its row; a worker that dies is retried `retries` times, then its row says so.
Rows are appended to `rows.jsonl` as they arrive, so running the same batch again resumes it.
With `library_remote`, every worker syncs its node's capability store with that git remote
(knowledge/sync.py) before and after each run, so what one node learns the others reuse.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from planexec.errors import UsageError
from planexec.recordings import Recording, discover, task_memory

INSTALL_HINT = "pip install 'planexec[batch]' (or: pip install 'ray==2.*')"
FINISHED = ("succeeded", "partial")
"""Row statuses a resumed batch skips; failed, error and crashed recordings run again."""
@dataclass(frozen=True)
class BatchJob:
    """What every recording of a batch runs, and how."""

    request: str
    output: Path
    """The batch folder: rows.jsonl, batch.csv, report.md, summary.png and runs/<recording>/."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Config overrides for every run (llm, model, embedder, ...); PLANEXEC_HOME stays the node's own."""
    library_remote: str | None = None
    """A bare git repository (path) or git:// URL every node syncs its capability library with."""
    retries: int = 2
    """Times a recording is run again after its worker process died."""
    warmup: int = 0
    """Recordings run first, alone, so capabilities they create reach every node before the rest start."""
    llm_factory: Callable[[], Any] | None = None
    """Builds each run's LLM in the worker (tests pass a scripted one); None: from the settings."""
    run_one: Callable[[BatchJob, Recording], BatchRow] | None = None
    """Replaces `run_recording` (to inject faults in tests); None runs the orchestrator."""


@dataclass
class BatchRow:
    """One recording's outcome: status, key figures, where its run folder is, and why it failed."""

    name: str
    images: str
    status: str
    """A run status (succeeded, partial, failed, aborted), error (the run raised) or crashed."""
    seconds: float = 0.0
    figures: dict[str, Any] = field(default_factory=dict)
    output_dir: str = ""
    error: str = ""
    attempts: int = 1
    node: str = ""
    worker_pid: int = 0
    warm: bool = False
    """The worker had already run a recording (its model and fork server were loaded)."""
    llm_calls: int = 0
    generated: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    sync_seconds: float = 0.0
    extra: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BatchRow:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class BatchResult:
    """Every row (in the recordings' order), the wall time, and the files written."""

    job: BatchJob
    rows: list[BatchRow]
    seconds: float
    skipped: int = 0
    """Rows carried over from an earlier, interrupted batch."""
    files: dict[str, Path] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.rows)

    @property
    def ok(self) -> bool:
        return bool(self.rows) and all(r.status in FINISHED for r in self.rows)


# ---- one recording, in a worker ------------------------------------------------------------------

_WORKER_RUNS = 0  # recordings this worker process has run or been warmed for (0: cold)


def preload(job: BatchJob) -> int:
    """Warm this worker: sync the library, load the embedding model, open the store, start the fork server."""
    global _WORKER_RUNS
    from planexec.config import Config
    from planexec.context import capability_store
    from planexec.knowledge.embedder import get_embedder
    from planexec.sandbox.forkserver import get_server

    config = Config.from_env(**job.settings)
    _sync(job, config)
    get_embedder(config.embedder).embed(["warm up"])
    store = capability_store(config)
    try:
        store.list()
    finally:
        store.close()
    get_server()
    _WORKER_RUNS += 1
    return os.getpid()


def run_recording(job: BatchJob, rec: Recording) -> BatchRow:
    """Run the job's request on one recording; every failure becomes the row (never raises)."""
    global _WORKER_RUNS
    from planexec.config import Config
    from planexec.orchestrator import Orchestrator

    warm, started = _WORKER_RUNS > 0, time.perf_counter()
    _WORKER_RUNS += 1
    row = BatchRow(rec.name, rec.images, "error", node=_node(), worker_pid=os.getpid(), warm=warm, extra=dict(rec.extra))
    try:
        config = Config.from_env(**job.settings, output_root=job.output / "runs" / rec.name)
        row.sync_seconds += _sync(job, config, row)
        llm = job.llm_factory() if job.llm_factory else None
        orch = Orchestrator(llm, None, config) if job.llm_factory else Orchestrator.from_config(config)
        result = orch.run(job.request, images=rec.images)
        row.status, row.output_dir = result.status, result.output_dir or ""
        row.error = "; ".join([e for e in (row.error, *result.errors) if e])[:500]
        row.figures = key_figures(result.results)
        row.llm_calls = result.usage.calls
        row.generated = [str(c) for c in result.results.get("saved_capabilities") or ()]
        row.reused = sorted({str(a.input["capability_id"]) for s in result.steps for a in s.attempts
                             if a.ok and a.input.get("capability_id")})
        row.sync_seconds += _sync(job, config, row)
    except Exception as exc:  # a raising run is this recording's failure, never the batch's
        row.status, row.error = "error", f"{type(exc).__name__}: {exc}"[:500]
    row.seconds = time.perf_counter() - started
    return row


def key_figures(results: dict[str, Any]) -> dict[str, Any]:
    """The scalar results of a run (counts, rates, means): what a row and the CSV show."""
    return {k: v for k, v in results.items()
            if isinstance(v, (int, float, str, bool)) and k not in ("report",) and not (isinstance(v, str) and len(v) > 200)}


def _sync(job: BatchJob, config: Any, row: BatchRow | None = None) -> float:
    """Sync the node's library with the remote; a failure is noted on the row, never fails the analysis."""
    if not job.library_remote:
        return 0.0
    from planexec.knowledge.sync import LibrarySync

    started = time.perf_counter()
    try:
        return LibrarySync(Path(config.home) / "capabilities", job.library_remote).sync().seconds
    except Exception as exc:  # an unreachable remote: this node goes on with its own library
        if row is None:
            raise
        row.error = (row.error + "; " if row.error else "") + f"library sync failed ({type(exc).__name__}: {exc})"[:300]
        return time.perf_counter() - started


def _node() -> str:
    try:
        import ray

        if ray.is_initialized():
            return f"{socket.gethostname()}:{ray.get_runtime_context().get_node_id()[:8]}"
    except ImportError:
        pass
    return socket.gethostname()


def _remote_entry(job: BatchJob, rec: Recording) -> BatchRow:
    """The Ray task body: the job's `run_one` or the orchestrator run."""
    return (job.run_one or run_recording)(job, rec)


# ---- the driver -------------------------------------------------------------------------------------


def require_ray() -> Any:
    """The `ray` module, or a usage error naming the install command."""
    try:
        import ray
    except ImportError:
        raise UsageError(f"planexec batch and eval --ray need Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Join the cluster at `address`, or start an embedded local Ray (nothing to start by hand)."""
    ray = require_ray()
    if not ray.is_initialized():
        # "local" starts a fresh embedded Ray even when `ray start` left a cluster address on this machine
        ray.init(address=address or "local", num_cpus=None if address else num_cpus, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    return ray


def run_batch(job: BatchJob, recordings: Sequence[Recording], *, address: str | None = None,
              num_cpus: int | None = None, on_row: Callable[[BatchRow, int, int], None] | None = None) -> BatchResult:
    """Run every recording not already finished in `job.output`; write the rows and the reports."""
    from planexec.batch_report import RowLog, write_reports

    if not job.request.strip():
        raise UsageError("the request is empty; say what to do with every recording")
    started = time.perf_counter()
    log = RowLog(job.output, job.request)
    done = {name: row for name, row in log.rows().items() if row.status in FINISHED}
    todo = [r for r in recordings if r.name not in done]
    rows: dict[str, BatchRow] = {r.name: done[r.name] for r in recordings if r.name in done}
    if todo:
        ray = connect(address, num_cpus)
        if job.library_remote:
            from planexec.knowledge.sync import init_bare

            if "://" not in job.library_remote:
                init_bare(job.library_remote)
        task = ray.remote(_remote_entry)
        largest = max((n.get("Resources", {}).get("memory", 0) for n in ray.nodes() if n.get("Alive")), default=0)

        def submit(rec: Recording) -> Any:
            return task.options(num_cpus=1, memory=rec.memory, max_retries=job.retries,
                                retry_exceptions=False).remote(job, rec)

        def too_big(rec: Recording) -> BatchRow:
            return BatchRow(rec.name, rec.images, "error", attempts=0, extra=dict(rec.extra),
                            error=f"needs {rec.memory / 2**30:.1f} GiB but the largest node offers {largest / 2**30:.1f} GiB; "
                                  "add a bigger node or split the movie")

        def finish(rec: Recording, row: BatchRow) -> None:
            rows[rec.name] = row
            log.append(row)
            if on_row is not None:
                on_row(row, len(rows), len(recordings))

        def collect(batch: Sequence[Recording]) -> None:
            for rec in batch:
                if largest and rec.memory > largest:  # Ray would wait forever for such a node
                    finish(rec, too_big(rec))
            refs = {submit(rec): rec for rec in batch if not (largest and rec.memory > largest)}
            while refs:  # every row ready within half a second, so 10,000 refs are not scanned per row
                ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0.5)
                for ref in ready:
                    rec = refs.pop(ref)
                    finish(rec, _get(ray, ref, rec, job.retries))

        first = max(0, min(job.warmup, len(todo)))
        # while the warm-up recordings run, every other CPU warms a worker (the cold starts overlap)
        idle = int(ray.cluster_resources().get("CPU", 1)) - first
        warming = [ray.remote(preload).options(num_cpus=1, scheduling_strategy="SPREAD").remote(job)
                   for _ in range(idle if first else 0)]
        collect(todo[:first])
        collect(todo[first:])
        del warming  # a warm-up that failed leaves nothing to report: its worker's recordings say why
    ordered = [rows[r.name] for r in recordings]
    result = BatchResult(job, ordered, time.perf_counter() - started, skipped=len(done))
    result.files = write_reports(result)
    return result


def _get(ray: Any, ref: Any, rec: Recording, retries: int) -> BatchRow:
    """The task's row, or a `crashed` row saying why its worker died (after the retries)."""
    try:
        return ray.get(ref)
    except Exception as exc:  # WorkerCrashedError, OutOfMemoryError, RayTaskError: this row only
        reason = type(exc).__name__
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        return BatchRow(rec.name, rec.images, "crashed", attempts=retries + 1,
                        error=f"worker died {retries + 1} time(s) ({reason}): {detail}", extra=dict(rec.extra))


def ray_case_runner(settings: dict[str, Any] | None = None, address: str | None = None) -> Callable[[Any], Any]:
    """An eval-suite runner that sends each case to a Ray task on a warm worker (see `run_suite`)."""
    ray = connect(address)
    task = ray.remote(_run_case)
    options = dict(settings or {})

    def run(case: Any) -> Any:
        return ray.get(task.options(num_cpus=1).remote(options, case))

    return run


def _run_case(settings: dict[str, Any], case: Any) -> Any:
    from planexec.config import Config
    from planexec.orchestrator import Orchestrator

    return Orchestrator.from_config(Config.from_env(**settings)).run(case.request, files=case.files, images=case.images)


__all__ = ["BatchJob", "BatchResult", "BatchRow", "Recording", "connect", "discover", "preload", "require_ray",
           "run_batch", "run_recording", "task_memory"]
