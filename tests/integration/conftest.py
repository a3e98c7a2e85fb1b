"""Integration fixtures: one seeded planexec home per session (copied per use) and an offline config."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planexec.config import Config
from planexec.context import capability_store
from planexec.evals import SuiteResult, load_suite, orchestrator_runner, run_suite
from planexec.knowledge.embedder import get_embedder

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "data" / "suites"


@pytest.fixture(scope="session")
def seeded_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose capability store already holds the starter library (seeding takes seconds)."""
    home = tmp_path_factory.mktemp("seeded") / "home"
    get_embedder("auto").embed(["warm up"])  # the packaged MiniLM, loaded once per process
    assert capability_store(Config.from_env(home=home, llm="none")).list(), "the starter library did not load"
    return home


def offline_config(home: Path, outputs: Path, **changes: object) -> Config:
    """No LLM, the packaged embedder, no paper retrieval (the runs here test tools, plans and results)."""
    return Config.from_env(llm="none", rag=False, home=home, output_root=outputs, **changes)


def fresh_home(seeded: Path, target: Path) -> Path:
    """A private copy of the seeded home, so runs cannot see each other's learning records."""
    shutil.copytree(seeded, target)
    return target


class SuiteRuns:
    """Runs each shipped suite once, in-process and offline, when first asked for it."""

    def __init__(self, seeded: Path, factory: pytest.TempPathFactory) -> None:
        self.seeded = seeded
        self.factory = factory
        self.done: dict[str, SuiteResult] = {}

    def get(self, name: str) -> SuiteResult:
        if name not in self.done:
            base = self.factory.mktemp(f"suite-{name}")
            config = offline_config(fresh_home(self.seeded, base / "home"), base / "outputs")
            suite = load_suite(SUITES / f"{name}.toml")
            self.done[name] = run_suite(suite, orchestrator_runner(config=config), cache_dir=base / "cache")
        return self.done[name]


@pytest.fixture(scope="session")
def suite_runs(seeded_home: Path, tmp_path_factory: pytest.TempPathFactory) -> SuiteRuns:
    return SuiteRuns(seeded_home, tmp_path_factory)
