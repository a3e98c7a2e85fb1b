"""Runs ready plan steps, in parallel where their dependencies allow (a bounded thread pool)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from planexec.deadline import past_deadline
from planexec.models import PlanStep, StepResult
from planexec.state import RunState


class Scheduler:
    """Submits every step whose dependencies are done; handles each result as it finishes.

    `on_result` runs in the calling thread, one result at a time, so it may change the plan
    (replanning) or raise to stop the run. A step's own events come from the thread running
    it, in order, and its StepFinished from `on_result`: per step, events stay ordered.
    `run.running` names the steps in flight, so a replan keeps them. No step starts once the
    run's deadline has passed (`planexec.deadline`); steps in flight finish.
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
            self._run_sequential(run, work, on_result)
        else:
            self._run_parallel(run, work, on_result)

    def _run_sequential(self, run: RunState, work: Callable[[PlanStep], StepResult],
                        on_result: Callable[[StepResult], None]) -> None:
        while not run.aborted and not past_deadline(run) and (ready := run.ready_steps(set())):
            run.running = {ready[0].step_num}
            try:
                result = work(ready[0])
            finally:
                run.running = set()
            on_result(result)

    def _run_parallel(self, run: RunState, work: Callable[[PlanStep], StepResult],
                      on_result: Callable[[StepResult], None]) -> None:
        with ThreadPoolExecutor(self.max_parallel, thread_name_prefix="planexec-step") as pool:
            running: dict[Future[StepResult], int] = {}
            try:
                while True:
                    stop = run.aborted or past_deadline(run)
                    ready = [] if stop else run.ready_steps(set(running.values()))
                    if len(ready) == 1 and not running:
                        # Alone: nothing could start beside it, so skip the thread hand-off.
                        run.running = {ready[0].step_num}
                        result = work(ready[0])
                        run.running = set()
                        on_result(result)
                        continue
                    if not stop:
                        for step in ready:
                            if len(running) >= self.max_parallel:
                                break
                            running[pool.submit(work, step)] = step.step_num
                            run.running = set(running.values())
                    if not running:
                        return
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=running.__getitem__):
                        running.pop(fut)
                        run.running = set(running.values())
                        on_result(fut.result())
            except BaseException:
                # steps still in flight see this and try no further tool; the pool then drains
                run.aborted = run.aborted or "stopped"
                raise
            finally:
                run.running = set()
