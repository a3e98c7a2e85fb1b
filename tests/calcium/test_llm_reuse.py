"""With an LLM: a request outside the library is decomposed, the missing step generated, verified
and saved; a paraphrase afterwards reuses every subtask and makes no LLM call."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from planexec import Config, Orchestrator
from planexec.context import capability_store
from tests.calcium.scripted_skewness import PARAPHRASE, REQUEST, scripted_llm
from tests.conftest import REPO

IMAGES = REPO / "data" / "images"


def test_generated_capability_is_saved_then_reused_without_llm(tmp_path: Path) -> None:
    config = Config.from_env(home=tmp_path / "home", output_root=tmp_path / "out")
    llm = scripted_llm()
    orch = Orchestrator(llm=llm, config=config)

    first = orch.run(REQUEST, images=IMAGES)
    assert first.status == "succeeded", first.errors
    assert first.plan.planner == "llm" and llm.usage.calls == 3
    assert first.steps[-1].tool == "python_coder"
    (saved,) = first.results["saved_capabilities"]
    assert len(first.results["dff_skewness"]) == len(first.results["cell_centroids"])

    store = capability_store(config)
    try:
        cap = store.load(saved)
        assert cap.origin == "generated" and cap.inputs == ["dff"] and cap.outputs == ["dff_skewness"]
        assert "stats.skew" in cap.code
        assert any(h["message"].startswith("Add capability") for h in store.history(saved))
        assert store.stats("compute_dff")["reuse_count"] == 1
    finally:
        store.close()

    repeat = orch.run(PARAPHRASE, images=IMAGES)
    assert repeat.status == "succeeded", repeat.errors
    assert llm.usage.calls == 3, "the repeat made an LLM call"
    assert repeat.usage.calls == 0 and repeat.plan.planner == "heuristic"  # covered: exactly the offline plan
    ran = [s.step.args.get("capability_id") for s in repeat.steps]
    assert saved in ran and all(s.tool == "run_capability" for s in repeat.steps)
    np.testing.assert_allclose(repeat.results["dff_skewness"], first.results["dff_skewness"])
    assert "python_coder" not in {a.tool for s in repeat.steps for a in s.attempts}
