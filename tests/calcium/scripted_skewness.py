"""A scripted LLM session for a request outside the capability library (shared by tests and benchmarks).

The model plans the chain from stored capabilities plus one new step (skewness of each
cell's ΔF/F trace), writes that step's code, and writes the answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from planexec.llm import Message, ScriptedLLM

REQUEST = "Compute the skewness of each cell's dF/F trace"
PARAPHRASE = "What is the skewness of every neuron's dF/F trace?"
PARAPHRASES = (
    PARAPHRASE,
    "Give me the skewness of the dF/F trace of each neuron",
    "compute skewness for every cell's dF/F trace",
)


def _cap(num: int, cap: str, deps: tuple[int, ...], outputs: list[str]) -> dict[str, object]:
    return {"step_num": num, "goal": cap.replace("_", " "), "primary_tools": ["run_capability"],
            "fallback_tools": ["python_coder"], "args": {"capability_id": cap},
            "depends_on": list(deps), "outputs": outputs}


PLAN = {
    "rationale": "reuse the stored chain up to dF/F, generate the skewness step",
    "steps": [
        _cap(1, "register_motion", (), ["images_registered", "reg_offsets", "bad_frames", "valid_region"]),
        _cap(2, "segment_cells", (1,), ["stat", "cell_labels", "cell_centroids"]),
        _cap(3, "extract_neuropil", (1, 2), ["roi_traces", "F", "Fneu"]),
        _cap(4, "baseline_running", (3,), ["baseline"]),
        _cap(5, "compute_dff", (3, 4), ["dff"]),
        {"step_num": 6, "goal": REQUEST, "primary_tools": ["python_coder"], "depends_on": [5],
         "inputs": ["dff"], "outputs": ["dff_skewness"], "success_criteria": "produces dff_skewness"},
    ],
}
CODE = """```python
from scipy import stats

dff_skewness = stats.skew(dff, axis=1)
results = {"mean_skewness": float(np.mean(dff_skewness))}
```"""
ANSWER = "The ΔF/F traces are right-skewed (transients): see dff_skewness per cell."


def scripted_llm(delay: float = 0.0) -> ScriptedLLM:
    """Plan, code, answer; each reply after `delay` seconds (a slow model)."""

    def slow(text: str) -> Callable[[Sequence[Message]], str]:
        def reply(messages: Sequence[Message]) -> str:
            time.sleep(delay)
            return text

        return reply

    return ScriptedLLM([slow(json.dumps(PLAN)), slow(CODE), slow(ANSWER)])
