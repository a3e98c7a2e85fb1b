"""The calcium part of a run's outputs: suite2p folder, NWB file, report figures and the cell table.

Each output is written independently; one that cannot be written (no frame rate for NWB, no
ROIs) is named in the report with the reason, and never stops the others or the report.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planexec.errors import PlanexecError
from planexec.rundata import RunData

log = logging.getLogger(__name__)


@dataclass
class CalciumOutputs:
    """Files written (name → path relative to the run folder, or "not written: why") and what the reports show."""

    outputs: dict[str, str] = field(default_factory=dict)
    figures: list[Path] = field(default_factory=list)
    cells: list[Any] = field(default_factory=list)


_warm_lock = threading.Lock()
_warm_started = False


def warm_report_imports() -> None:
    """Import what a calcium run's host side needs later, once per process, in the background.

    Called when the first capability starts: from then the host mostly waits (for the sandbox's fork
    server, then for the analysis), and these cold imports (matplotlib, the export and figure modules
    with scipy.ndimage: about 0.7 s) would otherwise sit on the run's clock after the last step.
    Started earlier, they would compete with loading the movie and planning for the one GIL.
    """
    global _warm_started
    with _warm_lock:
        if _warm_started:
            return
        _warm_started = True

    def load() -> None:
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401
        import matplotlib.patheffects  # noqa: F401

        import planexec.tools.calcium_export  # noqa: F401
        import planexec.tools.calcium_figures  # noqa: F401

    threading.Thread(target=load, name="planexec-report-imports", daemon=True).start()


def _attempt(outputs: dict[str, str], name: str, fn: Any) -> Any:
    try:
        return fn()
    except PlanexecError as exc:
        outputs[name] = f"not written: {exc}"
    except Exception as exc:  # noqa: BLE001 - an export bug must not lose the finished analysis
        log.exception("writing %s failed", name)
        outputs[name] = f"not written: {type(exc).__name__}: {exc}"
    return None


def calcium_outputs(out: Path, state: Mapping[str, Any], version: str) -> CalciumOutputs:
    """Write the field-format files for a run that extracted traces; nothing for other runs."""
    from planexec.tools.calcium_export import collect, write_suite2p

    result = CalciumOutputs()
    res = _attempt(result.outputs, "suite2p", lambda: collect(state))
    if res is None:
        return result
    files = _attempt(result.outputs, "suite2p", lambda: write_suite2p(res, out, version))
    if files:
        result.outputs["suite2p"] = "suite2p/plane0/ (" + ", ".join(p.name for p in files) + ")"
    nwb = _attempt(result.outputs, "nwb", lambda: _nwb(res, out, version))
    if nwb is not None:
        result.outputs["nwb"] = nwb.name
    variables = RunData.of(state).variables
    events = variables.get("events") if isinstance(variables.get("events"), list) else None
    result.cells = _attempt(result.outputs, "cell_table", lambda: _cells(res, events)) or []
    result.figures = _attempt(result.outputs, "report_figures", lambda: _figures(res, events, out)) or []
    return result


def _nwb(res: Any, out: Path, version: str) -> Path:
    from planexec.tools.calcium_nwb import write_nwb

    return write_nwb(res, out / "calcium.nwb", version, identifier=out.name)


def _cells(res: Any, events: list[dict[str, Any]] | None) -> list[Any]:
    from planexec.tools.calcium_figures import cell_table

    return cell_table(res, events)


def _figures(res: Any, events: list[dict[str, Any]] | None, out: Path) -> list[Path]:
    from planexec.tools.calcium_figures import raster_figure, roi_figure, traces_figures

    folder = out / "figures"
    folder.mkdir(exist_ok=True)
    made = [roi_figure(res, folder / "report_rois.png"), *traces_figures(res, folder),
            raster_figure(res, events, folder / "report_raster.png")]
    return [p for p in made if p is not None]
