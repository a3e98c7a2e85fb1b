"""The `llm_rubric` validator: an LLM grades the answer against a rubric; verdicts are cached on disk.

The cache key is the judge model, the full prompt and the answer, so a repeated suite run
makes no judge calls, and changing any of the three asks again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from planexec.atomic import atomic_write_text
from planexec.errors import LLMError
from planexec.evals.base import (
    BadParams,
    CheckUnavailable,
    EvalContext,
    Outcome,
    ValidatorSet,
    as_text,
    need,
    opt_number,
)
from planexec.llm.base import Message, complete_json

VALIDATORS = ValidatorSet()

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pass": {"type": "boolean"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string"},
    },
    "required": ["pass", "score", "reason"],
}

SYSTEM = (
    "You grade an answer against a rubric. Judge only what the rubric asks. Reply with JSON "
    'only: {"pass": true|false, "score": a number from 0 to 1, "reason": "one sentence"}.'
)


class JudgeCache:
    """Judge verdicts as small JSON files under `root`, keyed by sha256(model, prompt, answer)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.hits = 0
        self.misses = 0
        self.asked = 0
        """Verdicts that had to be asked of the judge (each one or two LLM calls)."""
        self._lock = threading.Lock()

    @staticmethod
    def key(model: str, prompt: str, answer: str) -> str:
        blob = json.dumps([model, prompt, answer], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            value = None
        ok = isinstance(value, dict) and isinstance(value.get("pass"), bool) and isinstance(
            value.get("score"), (int, float)) and "reason" in value
        with self._lock:
            if ok:
                self.hits += 1
            else:
                self.misses += 1
        return value if ok else None

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Write atomically, so parallel cases never read half a file."""
        atomic_write_text(self._path(key), json.dumps(verdict), sync=False)


def rubric_prompt(rubric: str, answer: str) -> str:
    return f"Rubric:\n{rubric}\n\nAnswer to grade:\n<answer>\n{answer}\n</answer>"


def judge_cache_for(ctx: EvalContext) -> JudgeCache | None:
    if ctx.judge_cache is not None:
        return ctx.judge_cache
    if ctx.cache_dir is not None:
        ctx.judge_cache = JudgeCache(Path(ctx.cache_dir) / "judge")
    return ctx.judge_cache


@VALIDATORS("llm_rubric", params=("rubric", "threshold"), deterministic=False)
def llm_rubric(answer: Any, params: dict[str, Any], ctx: EvalContext) -> Outcome:
    """Passes when an LLM judge says the answer meets the rubric (or its score >= threshold)."""
    rubric = need(params, "rubric", str, "the grading instructions")
    if not rubric.strip():
        raise BadParams("params.rubric is empty; say what a passing answer must do")
    threshold = opt_number(params, "threshold")
    if threshold is not None and not 0 <= threshold <= 1:
        raise BadParams(f"params.threshold must lie in [0, 1], got {threshold:g}")
    text = as_text(answer)
    prompt = rubric_prompt(rubric, text)
    cache = judge_cache_for(ctx)
    model = getattr(ctx.judge, "model", "") if ctx.judge is not None else ""
    key = JudgeCache.key(str(model), SYSTEM + "\n" + prompt, text)
    verdict = cache.get(key) if cache is not None and ctx.judge is not None else None
    cached = verdict is not None
    if verdict is None:
        if ctx.judge is None:
            raise CheckUnavailable("llm_rubric needs a judge LLM: run with --llm openai|anthropic "
                                   "or pass EvalContext(judge=...)")
        try:
            verdict = complete_json(ctx.judge, [Message("system", SYSTEM), Message("user", prompt)],
                                    VERDICT_SCHEMA, what="verdict")
        except LLMError as exc:
            raise CheckUnavailable(f"judge failed: {exc}") from None
        if cache is not None:
            cache.put(key, verdict)
            with cache._lock:
                cache.asked += 1
    score = float(verdict["score"])
    ok = score >= threshold if threshold is not None else bool(verdict["pass"])
    source = " (cached)" if cached else ""
    return Outcome(ok, f"Judge{source}: {verdict['reason']} (score {score:.2f}).", output=verdict, score=score)
