"""Run a suite: each case through an agent (the Orchestrator by default), optionally in parallel, then score it.

A case whose run raised is an *error*, reported apart from a case whose checks failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.evals.base import EvalContext
from planexec.evals.judge import JudgeCache
from planexec.evals.scoring import Details, evaluate_answer, metrics
from planexec.evals.suite import Case, Suite, missing_inputs
from planexec.models import RunResult
from planexec.serialize import to_jsonable

if TYPE_CHECKING:
    from planexec.config import Config
    from planexec.llm.base import LLM

Runner = Callable[[Case], RunResult]


@dataclass
class CaseResult:
    """One case's outcome: its score and check details, or the error that stopped its run."""

    case: Case
    score: float = 0.0
    details: Details = field(default_factory=list)
    error: str | None = None
    answer: str = ""
    run_status: str = ""
    seconds: float = 0.0
    results: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.error is None and self.score >= self.case.threshold

    @property
    def outcome(self) -> str:
        """PASS, FAIL or ERROR."""
        return "ERROR" if self.error is not None else ("PASS" if self.passed else "FAIL")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "request": self.case.request,
            "outcome": self.outcome,
            "score": self.score,
            "threshold": self.case.threshold,
            "error": self.error,
            "run_status": self.run_status,
            "seconds": self.seconds,
            "answer": self.answer,
            "results": to_jsonable(self.results),
            "metrics": metrics(self.details),
            "checks": to_jsonable(self.details),
        }


@dataclass
class SuiteResult:
    """Every case's result and the suite's verdict against its threshold."""

    suite: Suite
    cases: list[CaseResult]
    seconds: float = 0.0
    judge_calls: int = 0
    """Verdicts asked of the judge in this run (0 when every one came from the cache)."""

    def count(self, outcome: str) -> int:
        return sum(1 for c in self.cases if c.outcome == outcome)

    @property
    def pass_rate(self) -> float:
        return self.count("PASS") / len(self.cases) if self.cases else 0.0

    @property
    def mean_score(self) -> float:
        return sum(c.score for c in self.cases) / len(self.cases) if self.cases else 0.0

    @property
    def passed(self) -> bool:
        return bool(self.cases) and self.pass_rate >= self.suite.threshold

    def metrics(self) -> dict[str, float]:
        """Named metrics over every check of every case."""
        return metrics([d for c in self.cases for d in c.details])

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite.name,
            "path": str(self.suite.path) if self.suite.path else None,
            "passed": self.passed,
            "threshold": self.suite.threshold,
            "pass_rate": self.pass_rate,
            "mean_score": self.mean_score,
            "counts": {k: self.count(k) for k in ("PASS", "FAIL", "ERROR")},
            "metrics": self.metrics(),
            "seconds": self.seconds,
            "judge_calls": self.judge_calls,
            "cases": [c.to_dict() for c in self.cases],
        }


def orchestrator_runner(llm: LLM | None = None, config: Config | None = None) -> Runner:
    """A runner that sends each case through a fresh `planexec.Orchestrator` (offline when llm is None)."""

    def run(case: Case) -> RunResult:
        from planexec.orchestrator import Orchestrator

        return Orchestrator(llm=llm, config=config).run(case.request, files=case.files, images=case.images)

    return run


def ray_runner(settings: dict[str, Any] | None = None, address: str | None = None) -> Runner:
    """A runner that runs each case as a Ray task on a warm worker (Config overrides in `settings`)."""
    from planexec.batch import ray_case_runner

    return ray_case_runner(settings, address)


def run_case(case: Case, runner: Runner, ctx: EvalContext) -> CaseResult:
    """Run one case and score it; never raises (a failing run becomes the case's error)."""
    started = time.perf_counter()
    missing = missing_inputs(case)
    if missing:
        names = ", ".join(str(p) for p in missing)
        return CaseResult(case, error=f"input(s) missing: {names}; create them (e.g. planexec demo-data) "
                                      "or fix the suite's paths")
    try:
        run = runner(case)
    except Exception as exc:  # a crashing agent is an error of this case, not of the suite
        return CaseResult(case, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    case_ctx = EvalContext(run=run, elapsed=seconds, judge=ctx.judge, judge_cache=ctx.judge_cache,
                           embedder=ctx.embedder, cache_dir=ctx.cache_dir)
    score, details = evaluate_answer(run.answer, list(case.points), case_ctx)
    return CaseResult(case, score, details, None, run.answer, run.status, seconds, dict(run.results))


def run_suite(
    suite: Suite,
    runner: Runner | None = None,
    *,
    concurrency: int = 1,
    judge: LLM | None = None,
    cache_dir: Path | None = None,
    embedder: str = "auto",
    on_case: Callable[[CaseResult], None] | None = None,
) -> SuiteResult:
    """Run every case (up to `concurrency` at once); results keep the suite's order.

    `judge` grades llm_rubric points; its verdicts are cached under `cache_dir/judge`.
    `on_case` is called (in this thread) as each case finishes, for progress display.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    runner = runner or orchestrator_runner()
    cache = JudgeCache(Path(cache_dir) / "judge") if cache_dir is not None else None
    ctx = EvalContext(judge=judge, judge_cache=cache, embedder=embedder, cache_dir=cache_dir)
    started = time.perf_counter()
    results: dict[str, CaseResult] = {}
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = {pool.submit(run_case, case, runner, ctx): case for case in suite.cases}
        for future in as_completed(futures):
            result = future.result()
            results[result.case.id] = result
            if on_case is not None:
                on_case(result)
    ordered = [results[c.id] for c in suite.cases]
    return SuiteResult(suite, ordered, time.perf_counter() - started, cache.asked if cache else 0)
