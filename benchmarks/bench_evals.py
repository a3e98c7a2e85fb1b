"""Evals speed: 1,000 answers x 10 deterministic checks (target < 2 s), the bit-parallel edit
distance against the textbook DP, and the judge cache (a repeated suite run makes zero judge calls).

    .venv/bin/python benchmarks/bench_evals.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planexec.evals import evaluate_answer, run_suite, suite_from_dict
from planexec.evals.similarity_checks import levenshtein_distance
from planexec.llm import FunctionLLM
from planexec.models import RunResult
from tests.evals.test_similarity_checks import (
    dp_levenshtein,  # the textbook algorithm the tests check against
)

WORDS = ("the model transformer revenue cells spike trace mean median plot figure result value "
         "analysis data table column row step tool answer maybe perhaps").split()

POINTS = [
    {"text": "mentions revenue", "type": "keyword", "params": {"keywords": ["revenue", "mean"]}, "weight": 3.0},
    {"text": "no weakeners", "type": "negation", "params": {"keywords": ["maybe", "perhaps", "possibly"]}},
    {"id": "has_json", "text": "has a JSON block", "type": "regex", "params": {"pattern": "```json"}},
    {"text": "JSON is valid", "type": "json_schema", "depends_on": "has_json",
     "params": {"schema": {"type": "object", "required": ["mean"], "properties": {"mean": {"type": "number"}}}}},
    {"text": "40-200 words", "type": "length", "params": {"min": 40, "max": 200}, "weight": 0.5},
    {"text": "mean near 3674", "type": "numeric", "params": {"label": "mean", "value": 3674.48, "rel_tolerance": 0.01}},
    {"text": "starts politely", "type": "starts_with", "params": {"value": "Result"}},
    {"text": "close to the reference", "type": "levenshtein",
     "params": {"value": "Result: the mean revenue is 3674.48", "threshold": 0.1}},
    {"text": "ROUGE-L vs reference", "type": "rouge_l",
     "params": {"value": "the mean revenue of the table is 3674.48 per row", "threshold": 0.1}},
    {"text": "not an error", "type": "not-contains", "params": {"value": "Traceback"}},
]


def make_answers(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 120)))
        mean = 3674.48 * (1 + rng.uniform(-0.02, 0.02))
        block = f'\n```json\n{{"mean": {mean:.2f}, "n": {i}}}\n```' if i % 3 else ""
        out.append(f"Result: the mean revenue is {mean:.2f}. {body}{block}")
    return out


def bench_checks(n: int) -> None:
    answers = make_answers(n)
    evaluate_answer(answers[0], POINTS)  # warm caches (compiled regexes, schema validators)
    started = time.perf_counter()
    scores = [evaluate_answer(a, POINTS)[0] for a in answers]
    elapsed = time.perf_counter() - started
    checks = n * len(POINTS)
    print(f"checks: {n} answers x {len(POINTS)} deterministic checks = {checks} in {elapsed:.3f} s "
          f"({elapsed / checks * 1e6:.1f} us/check, mean score {sum(scores) / n:.3f})")
    target = 2.0 * n / 1000
    verdict = "met" if elapsed < target else "MISSED"
    print(f"checks: target < {target:.2f} s at this size: {verdict} (target / measured = {target / elapsed:.1f}x)")


def bench_levenshtein(n: int) -> None:
    answers = make_answers(n, seed=1)
    ref = answers[-1]
    t0 = time.perf_counter()
    fast = [levenshtein_distance(a, ref) for a in answers]
    t1 = time.perf_counter()
    slow = [dp_levenshtein(a, ref) for a in answers]
    t2 = time.perf_counter()
    assert fast == slow
    avg = sum(len(a) for a in answers) / n
    print(f"levenshtein: {n} pairs of ~{avg:.0f} chars: bit-parallel {t1 - t0:.3f} s, "
          f"DP {t2 - t1:.3f} s, {(t2 - t1) / (t1 - t0):.0f}x faster, identical distances")


def bench_judge_cache(n_cases: int) -> None:
    suite = suite_from_dict({"name": "judged", "cases": [
        {"id": f"c{i}", "request": f"question {i}",
         "points": [{"type": "llm_rubric", "params": {"rubric": "The answer is polite."}},
                    {"type": "keyword", "params": {"keywords": ["answer"]}}]}
        for i in range(n_cases)]})
    judge = FunctionLLM(lambda msgs: json.dumps({"pass": True, "score": 0.9, "reason": "polite"}), model="bench-judge")

    def agent(case) -> RunResult:  # type: ignore[no-untyped-def]
        return RunResult(case.request, None, [], f"Here is the answer to {case.request}.", "succeeded")

    with tempfile.TemporaryDirectory() as cache:
        timings = []
        for label in ("first run", "repeat run"):
            before = len(judge.calls)
            t0 = time.perf_counter()
            result = run_suite(suite, agent, judge=judge, cache_dir=Path(cache), concurrency=4)
            timings.append(time.perf_counter() - t0)
            print(f"judge cache: {label}: {len(judge.calls) - before} judge calls for {n_cases} cases "
                  f"({result.judge_calls} verdicts asked), {timings[-1] * 1000:.1f} ms, passed={result.passed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (100 answers)")
    args = parser.parse_args()
    n = 100 if args.quick else 1000
    bench_checks(n)
    bench_levenshtein(n // 10)
    bench_judge_cache(10 if args.quick else 50)


if __name__ == "__main__":
    main()
