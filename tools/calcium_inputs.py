"""The calcium domain's image input: how a run's --images movie is loaded, and how a generated
script loads it again. Registered with the core as the default `ImageLoader` (planexec.tools)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.config import Config
from planexec.events import LogMessage
from planexec.llm.budget import RunBudget

if TYPE_CHECKING:
    from planexec.state import RunState

PIXELS_PER_SECOND = 2e6
"""Movie pixels a run analyses per second, about half what a 2,000 x 512 x 512 run managed on 2
shared CPUs at load 4-6 (4 Mpx/s for the analysis steps), so the estimate errs long."""
FIXED_SECONDS = 120.0
"""Start-up, planning, figures and reports, whatever the movie's size."""


class CalciumImages:
    """A calcium-imaging movie (frames folder, TIFF, .npy, HDF5) as the variable `images`."""

    def load(self, run: RunState) -> None:
        """The movie into the run's variables, its metadata and frame rate / pixel size into the run."""
        assert run.images is not None
        movie = _load_images(run.images, run.params.values)
        run.services.movie.set(movie)  # closed with the run: removes a temporary copy of the movie
        run.state.variables["images"], meta = movie.images, movie.meta
        run.state.stack_meta = meta
        _acquisition_into_params(run, meta)
        _deadline_for_movie(run, meta)
        for warning in [*(getattr(meta, "skipped", ()) or ()), *([meta.axes_note] if meta.axes_note else [])]:
            run.bus.emit(LogMessage("warning", str(warning)))

    def preamble(self, images: object, params: dict[str, Any]) -> tuple[str, str]:
        """Imports, input loading and the run's parameters, so the composed script runs on its own:
        (what the block is, its code)."""
        return "Inputs: the image stack as float32 T x H x W in [0, 1], and the run's parameters", (
            "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "import numpy as np\nimport scipy\nimport skimage\n\n"
            "from planexec.tools.calcium_io import load_stack\n\n"
            f"images, _meta = load_stack({str(Path(str(images)).resolve())!r})\n"
            f"params = {params!r}"
        )


def _load_images(path: Path, params: dict[str, Any]) -> Any:
    """The movie (loaded whole, or memory-mapped when large) and what was loaded; `params` may name
    fs, pixel_size, an HDF5 dataset, the axes and stream."""
    from planexec.tools.calcium_source import open_for_run

    return open_for_run(path, params)


def _acquisition_into_params(run: RunState, meta: Any) -> None:
    """The movie's own frame rate and pixel size become the run's parameters when nobody set them;
    an unknown rate is said out loud, since the capabilities then assume one."""
    acq = meta.acquisition
    if run.params.sources.get("fs") == "request":
        acq.fs_source = "stated in the request"
    if run.params.sources.get("pixel_size") == "request":
        acq.pixel_size_source = "stated in the request"
    values = run.state.variables.setdefault("params", {})
    for key, value, source in (("fs", acq.fs, acq.fs_source), ("pixel_size", acq.pixel_size, acq.pixel_size_source)):
        if value is not None and run.params.values.get(key) is None:  # the file's value; the user's wins
            run.params.values[key], run.params.sources[key] = value, source
            values[key] = value
    if acq.fs is None and run.params.values.get("fs") is None:
        from planexec.tools.calcium_meta import ASSUMED_FS

        run.params.sources["fs"] = f"not recorded, not given: analyses assume {ASSUMED_FS:g} Hz"
        run.bus.emit(LogMessage("warning", f"the movie records no frame rate and none was given: analyses that need "
                                           f"one assume {ASSUMED_FS:g} Hz, times are reported in frames; pass --fs HZ"))


def _deadline_for_movie(run: RunState, meta: Any) -> None:
    """A long movie outlasts the default deadline: when nobody chose one (--timeout,
    PLANEXEC_TIMEOUT), the run's deadline grows with the movie's pixels, and the report says so."""
    default = next(f.default for f in dataclasses.fields(Config) if f.name == "timeout")
    needed = FIXED_SECONDS + meta.frames * meta.height * meta.width / PIXELS_PER_SECOND
    if run.config.timeout != default or needed <= default:
        return
    seconds = float(round(needed, -1))
    run.config = run.config.replace(timeout=seconds)
    budget = getattr(run.llm, "budget", None)  # the model's calls share the run's deadline
    if isinstance(budget, RunBudget) and budget.timeout == default:
        budget.deadline, budget.timeout = budget.deadline + seconds - default, seconds
    meta.deadline = (f"{seconds:g} s, not the default {default:g} s: a {meta.frames} x {meta.height} x {meta.width} "
                     f"movie may take that long here (estimated from its pixels); --timeout sets another")
    run.bus.emit(LogMessage("warning", f"the run's deadline is {meta.deadline}"))
