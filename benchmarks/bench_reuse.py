"""A repeated paraphrase reuses every subtask: first run (LLM plans and writes code) vs the repeat.

The model is scripted and sleeps `--delay` seconds per call (1 s by default, as a real model
might). Both runs happen in one warm process (embedding model and sandbox already loaded,
timed separately), on the shipped sample movie, with a fresh capability store.
Run: .venv/bin/python benchmarks/bench_reuse.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="0.3 s per LLM call instead of 1 s")
    parser.add_argument("--delay", type=float, default=None, help="seconds per scripted LLM call")
    args = parser.parse_args()
    delay = args.delay if args.delay is not None else (0.3 if args.quick else 1.0)

    from planexec import Config, Orchestrator
    from planexec.knowledge.embedder import get_embedder
    from planexec.sandbox import Sandbox
    from tests.calcium.scripted_skewness import PARAPHRASES, REQUEST, scripted_llm

    t = time.perf_counter()
    get_embedder("auto").embed(["warm up"])
    Sandbox().run("results = {}")
    warmup = time.perf_counter() - t

    images = ROOT / "data" / "images"
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.from_env(home=Path(tmp) / "home", output_root=Path(tmp) / "out")
        llm = scripted_llm(delay)
        orch = Orchestrator(llm=llm, config=config)
        t = time.perf_counter()
        first = orch.run(REQUEST, images=images)
        first_s = time.perf_counter() - t
        calls_first = llm.usage.calls
        repeats = []
        for paraphrase in PARAPHRASES:
            t = time.perf_counter()
            repeat = orch.run(paraphrase, images=images)
            repeats.append(time.perf_counter() - t)
            assert repeat.status == "succeeded" and repeat.plan.planner == "reuse", (paraphrase, repeat.errors)
        assert first.status == "succeeded", first.errors
    repeat_s = sorted(repeats)[1]
    print(f"warm-up (embedding model + sandbox fork server): {warmup:.2f} s, paid once per process")
    print(f"first run : {first_s:6.2f} s  planner={first.plan.planner:6s} LLM calls={calls_first} "
          f"({delay:.1f} s each), generated: {first.results.get('saved_capabilities')}")
    print(f"repeat    : {repeat_s:6.2f} s  planner={repeat.plan.planner:6s} LLM calls={llm.usage.calls - calls_first} "
          f"(median of {len(repeats)} different paraphrases: {', '.join(f'{r:.2f}' for r in repeats)} s), "
          f"subtasks reused: {len(repeat.steps)}/{len(repeat.steps)}")
    print(f"speed-up repeat vs first: {first_s / repeat_s:.1f}x  (goal >= 20x with 1 s per call, and no LLM call)")


if __name__ == "__main__":
    main()
