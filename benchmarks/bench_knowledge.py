"""Knowledge benchmarks: capability search over 10,000 stored, save latency with 1,000
stored, and RAG incremental rebuild after one changed paper vs a full rebuild.

    .venv/bin/python benchmarks/bench_knowledge.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from planexec.knowledge.capability import Capability  # noqa: E402
from planexec.knowledge.embedder import get_embedder  # noqa: E402
from planexec.knowledge.rag import KnowledgeBase, default_papers_dir  # noqa: E402
from planexec.knowledge.store import CapabilityStore  # noqa: E402

VERBS = ["Compute", "Estimate", "Report", "Measure", "Calculate", "Summarise"]
STATS = ["mean", "median", "maximum", "standard deviation", "90th percentile", "count", "variance", "sum"]
THINGS = ["ΔF/F amplitude", "rise time", "decay time", "event rate", "cell area", "baseline", "band depth",
          "trace correlation", "inter-event interval", "pointwise spread", "signal-to-noise ratio", "duration"]
OBJECTS = ["cell", "ROI", "curve", "trial", "frame", "neuron", "recording", "session"]
METHODS = ["a rolling window of {n} frames", "the {n}th percentile", "a {n} Hz low-pass filter",
           "Otsu thresholding", "watershed seeds {n} px apart", "find_peaks with prominence {n}x MAD",
           "modified band depth", "Spearman correlation", "Pearson correlation", "a z-score threshold of {n}"]


def synthetic(i: int, rng: random.Random) -> Capability:
    method = rng.choice(METHODS).format(n=rng.randint(2, 200))
    desc = f"{rng.choice(VERBS)} the {rng.choice(STATS)} {rng.choice(THINGS)} of each {rng.choice(OBJECTS)} using {method}"
    return Capability(id=f"syn_{i:05d}", name=desc[:40], description=desc, inputs=["traces"], outputs=[f"out_{i}"],
                      code=f"result = traces.mean() * {i}\n")


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def bench_store(n_save_base: int, n_search: int, emb, rng: random.Random) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench_store_"))
    try:
        store = CapabilityStore(tmp / "store", emb, seed=False)
        t0 = time.perf_counter()
        store.save_many([synthetic(i, rng) for i in range(n_save_base)], "bench: base")
        print(f"bulk import of {n_save_base} capabilities (one commit, embedding included): {time.perf_counter() - t0:.1f} s")
        saves = []
        for i in range(30):
            cap = synthetic(10**6 + i, rng)
            t = time.perf_counter()
            store.save(cap)
            saves.append((time.perf_counter() - t) * 1000)
        p50, p95 = pct(saves, 50), pct(saves, 95)
        print(f"save with {n_save_base} stored: p50 {p50:.1f} ms, p95 {p95:.1f} ms (goal <= 50 ms; p50/goal = {p50 / 50:.2f})")

        t0 = time.perf_counter()
        store.save_many([synthetic(i, rng) for i in range(n_save_base, n_search)], "bench: grow")
        print(f"grew the store to {len(store)} capabilities in {time.perf_counter() - t0:.1f} s")
        queries = [f"{synthetic(2 * 10**6 + i, rng).description} (query {i})" for i in range(60)]
        store.search("warm up query", 5)
        search_ms, embed_ms = [], []
        for q in queries:
            t = time.perf_counter()
            store.search(q, 5)
            search_ms.append((time.perf_counter() - t) * 1000)
        for q in queries:
            t = time.perf_counter()
            emb.embed([q + " again"])
            embed_ms.append((time.perf_counter() - t) * 1000)
        s50, e50 = pct(search_ms, 50), pct(embed_ms, 50)
        print(f"search over {len(store)} capabilities (incl. query embedding): p50 {s50:.1f} ms, p95 {pct(search_ms, 95):.1f} ms "
              f"(goal <= 15 ms; p50/goal = {s50 / 15:.2f})")
        print(f"  of which query embedding alone: p50 {e50:.1f} ms ({e50 / s50:.0%} of a search); "
              f"index + reuse checks: {s50 - e50:.1f} ms")
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_rag(copies: int, emb) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench_rag_"))
    try:
        papers = tmp / "papers"
        papers.mkdir()
        for src in sorted(default_papers_dir().glob("*")):
            for c in range(copies):
                (papers / f"{src.stem}_{c}{src.suffix}").write_text(src.read_text() + f"\n\nCopy {c} of the note.\n")
        kb = KnowledgeBase(papers, tmp / "index", emb)  # raw model: no embedding cache, so both builds embed for real
        full = kb.build(rebuild=True)
        target = papers / "baseline_dff_0.md"
        target.write_text(target.read_text() + "\nAn added paragraph on neuropil subtraction before ΔF/F.\n")
        inc = KnowledgeBase(papers, tmp / "index", emb).build()
        ratio = inc.seconds / full.seconds
        print(f"RAG over {full.papers} papers ({full.total_chunks} chunks): full rebuild {full.seconds * 1000:.0f} ms, "
              f"incremental after one changed paper {inc.seconds * 1000:.0f} ms ({inc.embedded_chunks} chunks embedded); "
              f"ratio {ratio:.1%} (goal <= 10%)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (200 / 1,000 capabilities, 5 paper copies)")
    args = parser.parse_args()
    emb = get_embedder("auto")
    emb.embed(["warm up the model"])
    rng = random.Random(7)
    print(f"embedder {emb.name} (dim {emb.dim}), {os.cpu_count()} CPUs")
    if args.quick:
        bench_store(200, 1000, emb, rng)
        bench_rag(5, emb)
    else:
        bench_store(1000, 10000, emb, rng)
        bench_rag(10, emb)


if __name__ == "__main__":
    main()
