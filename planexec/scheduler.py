"""Runs ready plan steps, in parallel where their dependencies allow (a bounded thread pool)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from planexec.models import PlanStep, StepResult
from planexec.state import RunState


class Scheduler:
    """Submits every step whose dependencies are done; handles each result as it finishes.

    `on_result` runs in the loop's thread, one result at a time, so it may change the plan
    (replanning) or raise to stop the run.
    """

    def __init__(self, max_parallel: int = 4) -> None:
        self.max_parallel = max(1, max_parallel)

    def run(
        self,
        run: RunState,
        work: Callable[[PlanStep], StepResult],
        on_result: Callable[[StepResult], None],
    ) -> None:
        if self.max_parallel == 1:
            while ready := run.ready_steps(set()):
                on_result(work(ready[0]))
            return
        with ThreadPoolExecutor(self.max_parallel, thread_name_prefix="planexec-step") as pool:
            running: dict[Future[StepResult], int] = {}
            try:
                while True:
                    for step in run.ready_steps(set(running.values())):
                        if len(running) < self.max_parallel:
                            running[pool.submit(work, step)] = step.step_num
                    if not running:
                        return
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=running.__getitem__):
                        running.pop(fut)
                        on_result(fut.result())
            except BaseException:
                run.aborted = run.aborted or "stopped"
                raise
