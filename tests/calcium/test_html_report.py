"""report.html in a real browser: headless Chromium (Debian's `chromium`) loads it offline and screenshots it.

The report is written by the real writers from a calcium state built from the shipped movie,
so no orchestrated run is needed; the page must render its embedded figures (their ROI
outlines are yellow pixels in the screenshot) and hold the tables a reader checks.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from planexec.models import RunResult
from planexec.report import write_reports
from planexec.tools.calcium_io import load_stack
from tests.conftest import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def _report(folder: Path) -> Path:
    images, meta = load_stack(REPO / "data" / "images", fs=10, pixel_size=1.5)
    labels = np.zeros(images.shape[1:], np.int32)
    for i, (y, x) in enumerate([(12, 14), (40, 40), (50, 12)], start=1):
        labels[y - 3:y + 3, x - 3:x + 3] = i
    F = np.stack([images[:, labels == i].mean(axis=1) for i in (1, 2, 3)])
    dff = F / np.median(F, axis=1, keepdims=True) - 1
    state = {"variables": {"images": images, "cell_labels": labels, "roi_traces": F, "dff": dff,
                           "mean_image": images.mean(axis=0),
                           "events": [{"cell": 0, "frame": 6, "amplitude": 0.5}, {"cell": 2, "frame": 40, "amplitude": 0.3}]},
             "stack_meta": meta, "params": {"fs": 10, "pixel_size": 1.5},
             "code_blocks": [("Step 1: mean\ncapability mean_projection v1 (builtin): x\ninputs ['images'] -> outputs ['mean_image']",
                              "mean_image = images.mean(axis=0)")]}
    result = RunResult(request="Analyse <the> calcium movie", plan=None, steps=[], answer="3 cells & 2 events.",
                       status="succeeded", output_dir=str(folder))
    write_reports(result, state)
    return folder / "report.html"


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "chromium-profile"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=90, check=True)


@pytest.mark.slow
def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = _report(tmp_path / "run")
    text = page.read_text()
    assert "src=\"http" not in text and "<script" not in text  # self-contained, nothing to fetch
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert 'id="status"' in dom and "succeeded" in dom and "Analyse &lt;the&gt; calcium movie" in dom
    for needle in ("<h2>Input</h2>", "given (--fs / params)", "<h2>Cells (3)</h2>", "event_rate_hz", "<h2>Code</h2>",
                   "mean_image = images.mean(axis=0)", "suite2p/plane0/", "calcium.nwb"):
        assert needle in dom, needle
    assert dom.count("data:image/png;base64,") == 3  # ROI map, traces, raster
    shot = tmp_path / "page.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,5000", page.as_uri())
    rgb = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert rgb.shape[:2] == (5000, 1200)
    yellow = (rgb[..., 0] > 200) & (rgb[..., 1] > 160) & (rgb[..., 1] < 230) & (rgb[..., 2] < 80)
    assert yellow.sum() > 50, "the ROI figure's outlines are not on the rendered page"
    assert (rgb.std(axis=(0, 1)) > 10).all()  # not a blank page
