"""The calcium domain's image input: how a run's --images movie is loaded, and how a generated
script loads it again. Registered with the core as the default `ImageLoader` (planexec.tools)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.events import LogMessage

if TYPE_CHECKING:
    from planexec.state import RunState


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
