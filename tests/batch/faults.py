"""Fault injection for the batch tests: a `run_one` that kills its worker process for chosen recordings.

Shipped to Ray workers by value (cloudpickle), so the workers need not import `tests`.
"""

from __future__ import annotations

import os

from planexec.batch import BatchJob, BatchRow, run_recording
from planexec.recordings import Recording


def crashing(job: BatchJob, rec: Recording) -> BatchRow:
    """`crash-once*` dies on its first attempt only (a marker file remembers); `crash-always*` every time."""
    marker = job.output / f".attempted-{rec.name}"
    first = not marker.exists()
    marker.touch()
    if rec.name.startswith("crash-always") or (rec.name.startswith("crash-once") and first):
        os._exit(17)  # no exception, no cleanup: the worker process is gone
    return run_recording(job, rec)
