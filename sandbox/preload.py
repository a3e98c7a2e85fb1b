"""What the fork server imports before it says ready, and what its spare maker loads after.

The server is ready once numpy, the stdlib a worker may need and what every worker's namespace
holds are loaded (about half of the full import time), so a CLI run's first step does not
wait for statistics and image libraries it may never use. The spare maker, a fork of the
server, loads the rest while the server answers requests; spares it forks have everything.
A worker forked from the server before that imports what it uses itself from site-packages
(Landlock lets it read there), but it cannot read a stdlib kept under a private home: a test
checks that the LATER imports load no stdlib module that EARLY has not.
"""

from __future__ import annotations

import gc
import importlib
import sys
import tempfile

EARLY = ("numpy", "scipy", "scipy.ndimage", "scipy.fft", "skimage", "matplotlib", "matplotlib.pyplot")
"""Loaded before the server is ready: what every worker's namespace holds (np, scipy, skimage,
plt) and what a first analysis step most often needs."""
LATER = (
    "skimage.feature", "skimage.segmentation", "scipy.sparse", "skimage.filters", "skimage.measure",
    "skimage.morphology", "skimage.exposure", "skimage.transform", "skimage.registration",
    "skimage.util", "scipy.signal", "scipy.stats", "scipy.optimize", "scipy.interpolate",
    "scipy.spatial",
)
"""Loaded by the spare maker, most likely needed first. skimage's subpackages load their
functions lazily, on first use, so naming them here loads little; scipy.signal is most of it."""
PRELOAD = EARLY + LATER
STDLIB_EXTRA = ("mmap",)
"""Stdlib modules a worker uses that the imports above do not load (it maps inputs)."""
OWN = ("planexec.sandbox.mapped",)
"""The sandbox's own modules a worker imports after it is confined (it maps streamed inputs)."""


def load_early() -> None:
    """Before ready: the stdlib, EARLY, the sandbox's own native pieces, a warm-up run."""
    from planexec.sandbox.policy import DEFAULT_ALLOWED_IMPORTS

    sys.dont_write_bytecode = True
    for name in (*sorted(DEFAULT_ALLOWED_IMPORTS - {"scipy", "skimage", "matplotlib"}),
                 *STDLIB_EXTRA, *EARLY, *OWN):
        importlib.import_module(name)
    from planexec.sandbox import confine, seccomp, worker

    seccomp.load_library()
    if seccomp.available():
        seccomp.prepare()
    confine.remember_vm_size()
    confine.read_paths()
    worker.warm_up()
    _freeze()


def load_later() -> None:
    """The LATER modules, then a warm figure; rlimits count from the size after them."""
    from planexec.sandbox import confine

    for name in LATER:
        importlib.import_module(name)
    _warm_figures()
    _freeze()
    confine.remember_vm_size()


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
