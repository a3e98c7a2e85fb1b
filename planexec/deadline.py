"""A run's one deadline (`Config.timeout`, `--timeout`): no step starts after it has passed.

Offline and with a model alike. The model calls of a run share the same deadline through
`planexec.llm.budget.RunBudget`. A step already running is not interrupted (its tools and the
sandbox have their own limits), so a run ends by its deadline plus its longest step. Steps not
started are recorded as skipped with the reason; what finished stays in the run's results,
reports and checkpoint, so the status is honest (`partial` or `failed`) and `resume` can continue.
"""

from __future__ import annotations

from planexec.models import StepResult
from planexec.state import RunState


def past_deadline(run: RunState) -> bool:
    """Whether the run's deadline has passed."""
    return run.elapsed() >= run.config.timeout


def skip_the_rest(run: RunState) -> None:
    """After the deadline: record every step that did not start as skipped, and say so once in the errors."""
    if run.plan is None or not past_deadline(run):
        return
    with run.lock:
        left = [s for s in run.plan.steps if s.step_num not in run.step_results]
        for step in left:
            run.step_results[step.step_num] = StepResult(
                step, "skipped", summary=f"not run: the run's deadline ({run.config.timeout:g} s) had passed")
    if left:
        run.stopped_at_deadline = True
        done = len(run.plan.steps) - len(left)
        run.errors.append(
            f"the run's deadline ({run.config.timeout:g} s) passed after {done} of {len(run.plan.steps)} step(s); "
            f"step(s) {[s.step_num for s in left]} were not run; raise --timeout (PLANEXEC_TIMEOUT) "
            "or `planexec resume` the run folder")
