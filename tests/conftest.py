"""Test-wide isolation: every test gets its own planexec home and output folder, offline models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PLANEXEC_HOME and PLANEXEC_OUTPUT_ROOT point into a fresh temporary folder; no API keys leak in."""
    base = tmp_path_factory.mktemp("planexec")
    monkeypatch.setenv("PLANEXEC_HOME", str(base / "home"))
    monkeypatch.setenv("PLANEXEC_OUTPUT_ROOT", str(base / "outputs"))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    return base
