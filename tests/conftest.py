"""Test-wide isolation: every test gets its own planexec home and output folder, offline models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# CI draws the same hypothesis examples on every run, so its result depends on the code alone;
# local runs keep drawing new ones (and so keep finding new failures).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
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


# The heaviest end-to-end tests (several seconds each: whole runs in subprocesses, hypothesis
# sweeps, every paper or suite) run in `make test` and CI; `make quick` leaves them out so the
# everyday loop stays under two minutes. Kept here as one list, by file and function.
HEAVY = {
    "tests/calcium/test_calcium_capabilities.py::test_accuracy_on_a_demo_movie",
    "tests/calcium/test_calcium_run.py::test_cli_subprocess_counts_cells_as_json",
    "tests/calcium/test_calcium_run.py::test_counting_paraphrases_chain_back_to_images",
    "tests/calcium/test_calcium_run.py::test_transient_run_scores_events_against_ground_truth",
    "tests/calcium/test_llm_reuse.py::test_generated_capability_is_saved_then_reused_without_llm",
    "tests/cli/test_run_cli.py::test_real_subprocess_json_parses",
    "tests/core/test_llm_runs.py::test_real_clients_run_the_whole_flow",
    "tests/core/test_models.py::test_from_dict_either_builds_a_plan_or_says_what_is_wrong",
    "tests/core/test_models.py::test_validation_never_crashes_and_finds_every_cycle_and_dangling_dep",
    "tests/core/test_surface.py::test_background_passages_are_retrieved_only_when_a_prompt_needs_them",
    "tests/core/test_surface.py::test_sales_example_offline_with_the_packaged_embedding_model",
    "tests/evals/test_scoring.py::test_evaluate_answer_never_raises_and_stays_in_range",
    "tests/integration/test_calcium_suite.py::test_the_suite_passes_offline_on_the_sample",
    "tests/integration/test_curves_flow.py::test_bad_curve_files_fail_clearly_without_crashing_the_run",
    "tests/integration/test_curves_flow.py::test_cli_json_from_another_folder",
    "tests/integration/test_suites_shipped.py::test_a_shipped_suite_passes_offline",
    "tests/knowledge/test_rag.py::test_retrieval_finds_the_right_paper",
    "tests/knowledge/test_reuse.py::test_reuse_decision_precision_and_recall_on_labelled_pairs",
    "tests/knowledge/test_store.py::test_builtin_capabilities_are_imported_in_one_commit",
    "tests/knowledge/test_store_concurrency.py::test_four_processes_times_25_saves_lose_nothing",
    "tests/knowledge/test_store_concurrency.py::test_kill_9_mid_save_leaves_a_store_that_opens",
    "tests/orchestration/test_approval.py::test_cli_approve_in_a_terminal_asks_and_obeys",
    "tests/orchestration/test_checkpoint.py::test_sigkill_then_resume_from_the_command_line",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the HEAVY tests slow; a HEAVY name missing from its collected file is an error (renamed test)."""
    files, found = set(), set()
    for item in items:
        path = str(item.path.relative_to(REPO))
        files.add(path)
        key = f"{path}::{getattr(item, 'originalname', item.name)}"
        if key in HEAVY:
            item.add_marker(pytest.mark.slow)
            found.add(key)
    stale = {k for k in HEAVY - found if k.split("::")[0] in files}
    picked = config.getoption("keyword") or any("::" in str(a) for a in config.args)
    if stale and not picked:
        raise pytest.UsageError(f"tests/conftest.py HEAVY names tests its files no longer have: {sorted(stale)}")
