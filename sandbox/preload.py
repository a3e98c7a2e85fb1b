"""What the fork server imports, and when: a little before it says ready, the rest while idle.

The server is ready once numpy, the stdlib a worker may need and the modules most runs start
with are loaded (about a third of the full import time); it loads the rest between requests,
one module at a time, so a CLI run's first step does not wait for plotting and statistics
libraries it may never use. A worker forked before a module is loaded imports it itself from
site-packages (Landlock lets it read there), but it cannot read a stdlib kept under a private
home: a test checks that the LATER imports load no stdlib module that EARLY has not.
"""

from __future__ import annotations

import gc
import importlib
import sys
import tempfile
from collections import deque

EARLY = ("numpy", "scipy", "scipy.ndimage", "scipy.fft", "skimage", "matplotlib", "matplotlib.pyplot")
"""Loaded before the server is ready: what every worker's namespace holds (np, scipy, skimage,
plt) and what a first analysis step most often needs."""
LATER = (
    "skimage.feature", "skimage.segmentation", "scipy.sparse", "skimage.filters", "skimage.measure", "skimage.morphology", "skimage.exposure",
    "skimage.transform", "skimage.registration", "skimage.util", "scipy.signal", "scipy.stats",
    "scipy.optimize", "scipy.interpolate", "scipy.spatial",
)
"""Loaded while idle, most likely first."""
PRELOAD = EARLY + LATER
STDLIB_EXTRA = ("mmap",)
"""Stdlib modules a worker uses that the imports above do not load (it maps inputs)."""


def load_early() -> None:
    """Before ready: the stdlib, EARLY, the sandbox's own native pieces, a warm-up run."""
    from planexec.sandbox.policy import DEFAULT_ALLOWED_IMPORTS

    sys.dont_write_bytecode = True
    for name in (*sorted(DEFAULT_ALLOWED_IMPORTS - {"scipy", "skimage", "matplotlib"}),
                 *STDLIB_EXTRA, *EARLY):
        importlib.import_module(name)
    from planexec.sandbox import confine, seccomp, worker

    seccomp.load_library()
    if seccomp.available():
        seccomp.prepare()
    confine.remember_vm_size()
    confine.read_paths()
    worker.warm_up()
    _freeze()


class Later:
    """The LATER modules not loaded yet; `step()` loads one, `done` when none is left."""

    def __init__(self, names: tuple[str, ...] = LATER) -> None:
        self.queue = deque(names)
        self.done = not self.queue

    def step(self) -> None:
        """Load the next module; after the last, warm matplotlib and freeze the heap."""
        from planexec.sandbox import confine

        if self.queue:
            importlib.import_module(self.queue.popleft())
            confine.remember_vm_size()  # rlimits count from the size a worker is forked at
        if not self.queue and not self.done:
            _warm_figures()
            _freeze()
            confine.remember_vm_size()
            self.done = True

    def finish(self) -> None:
        """Load everything left now (a server that does not wait for idle moments)."""
        while not self.done:
            self.step()


def _warm_figures() -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots()
    ax.plot(np.arange(3))
    ax.set_title("warm")
    with tempfile.TemporaryFile() as fh:
        fig.savefig(fh, format="png")
    plt.close("all")


def _freeze() -> None:
    gc.collect()
    gc.freeze()  # forked workers' collections then skip (and do not copy) the warm heap
