"""Input generation: a tool's arguments for a step, from the planner, the request, or the LLM."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from planexec.errors import LLMError
from planexec.llm.base import LLM, Message, complete_json
from planexec.models import PlanStep
from planexec.number_words import digits
from planexec.request_paths import paths_in
from planexec.serialize import summarize
from planexec.tools.base import Tool, ToolContext

_NUMBER = r"(\d+(?:\.\d+)?)"
_BANDS = re.compile(r"(?:\d+\s*%|\bpercentile|\bcentral|\bconfidence|\bprediction)\s+bands?\b", re.IGNORECASE)
_TEXT_ARGS = ("query", "question", "request", "goal", "text", "prompt", "topic")


class HeuristicInputGenerator:
    """Planner args, then values named in the goal or request, given files, and schema defaults."""

    def generate(self, step: PlanStep, tool: Tool, ctx: ToolContext) -> dict[str, Any]:
        declared = (tool.input_schema or {}).get("properties")
        props: dict[str, Any] = declared or {}
        # a schema without "properties" takes anything; one with an empty dict takes no arguments.
        # A step with one tool: its arguments were written for it, so an unknown name is kept for
        # validation to reject (a misspelt n_curve must not fall back to the default). With
        # fallbacks, each tool takes the arguments it knows.
        mine = step.tools == (tool.name,)
        args = {k: v for k, v in step.args.items() if declared is None or k in props or mine}
        # the clause the step serves says what to look up or take (its goal is the action's title, "Rag retrieval")
        texts = [step.serves or step.goal, ctx.request]
        for name, spec in props.items():
            if name in args or not isinstance(spec, dict):
                continue
            value = _guess(name, spec, texts, ctx)
            if value is not None:
                args[name] = value
        return args


def _guess(name: str, spec: dict[str, Any], texts: list[str], ctx: ToolContext) -> Any:
    kinds = kinds_of(spec)
    words = argument_words(name)
    if name == "percentiles":  # "outside the 80th-percentile band": the widest band drawn is the one named
        named = next((m for t in texts if t for m in [_NAMED_BAND.search(digits(t))] if m), None)
        return [*(q for q in (25.0, 50.0, 75.0) if q < float(named.group(1))), float(named.group(1))] if named else None
    if "enum" in spec:
        from planexec.knowledge.reuse import extract_terms, without_terms

        for text in texts:
            # "the 90% band" and "percentile bands" name the bands drawn, not the band outlier rule
            # "by the band rule, not the fence": an option turned down is not chosen
            low, bare = _TURNED_DOWN.sub(" ", text.lower()), _BANDS.sub(" ", _TURNED_DOWN.sub(" ", without_terms(text)))
            for option in spec["enum"]:
                # an option that is itself a term ("mbd") is named as such; another ("band") only outside a
                # longer term the text names ("band depth" is a depth, not the band outlier rule)
                where = low if isinstance(option, str) and extract_terms(option).groups else bare
                if isinstance(option, str) and re.search(rf"\b{re.escape(option.lower())}\b|{_ALIASES.get(option, '(?!)')}", where):
                    return option
        return None
    if "string" in kinds and any(w in ("path", "file", "filename", "csv") for w in words):
        return _path_from(texts, ctx)
    if kinds & {"integer", "number"}:
        for text in texts:
            share = _CENTRAL_SHARE.search(digits(text)) if name == "prob" else None  # "seventy-five percent"
            if share:  # "the central region made of the 75% deepest curves": the share of curves inside it
                return float(share.group(1) or share.group(2)) / 100.0
            value = number_near(words, text)
            if value is not None:
                return int(value) if "integer" in kinds and value.is_integer() else value
        return None
    if "string" in kinds and name.lower() in _TEXT_ARGS:
        return texts[0] or texts[1]
    return None


_NAMED_BAND = re.compile(r"\b(\d+(?:\.\d+)?)(?:st|nd|rd|th)?\s*(?:-\s*)?(?:%|per ?cent|percentile)(?:\s*-\s*|\s+)band\b",
                         re.IGNORECASE)
_TURNED_DOWN = re.compile(r"\b(?:not|rather than|instead of|in place of|without|never)\s+(?:by\s+|using\s+|with\s+)?"
                          r"(?:the\s+|a\s+|an\s+)?[\w-]+", re.IGNORECASE)
"""An option the text turns down ("not the fence", "instead of MBD")."""
_ALIASES = {"inline": r"\bone[- ](?:line|liner|sentence)\b|\bsingle[- ](?:line|sentence)\b",
            "detailed": r"\bmulti[- ]section\b|\bsectioned\b|\bin[- ]depth\b"}
"""Other words for an option ("a one-line summary" is the inline report)."""
_CENTRAL_SHARE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)\s*(?:of the\s+)?(?:most\s+)?(?:deepest|central|innermost)\b|"
                            r"\bcentral (?:region|band|envelope)\b[^.;%]{0,40}?\b(\d+(?:\.\d+)?)\s*(?:%|per ?cent)", re.IGNORECASE)


def kinds_of(spec: dict[str, Any]) -> set[str]:
    t = spec.get("type")
    kinds = set(t) if isinstance(t, list) else {t} if t else set()
    for option in spec.get("anyOf") or ():
        kinds |= kinds_of(option)
    return kinds


def _path_from(texts: list[str], ctx: ToolContext) -> str | None:
    given = {Path(f).name: str(f) for f in ctx.files}
    for text in texts:
        for raw in paths_in(text):
            if Path(raw).name in given:
                return given[Path(raw).name]
            if Path(raw).expanduser().exists():
                return str(Path(raw).expanduser())
    return str(ctx.files[0]) if ctx.files else None


def argument_words(name: str) -> list[str]:
    """The words of an argument's name a request would say beside its value: n_curves -> ["curves"], and the
    words users give the same items ("22 ramps", "80 model runs")."""
    words = [w for w in name.lower().split("_") if w not in ("n", "num", "number", "of")]
    return [*words, *(s for w in words for s in _SAID_FOR.get(w, ()))]


_SAID_FOR = {"curves": ("ramps", "sines", "sine waves", "bumps", "gaussians", "members", "runs", "realisations",
                        "realizations", "trajectories", "scenarios"),
             "factor": ("fences", "fence", "whiskers")}  # "fences at 3 times the central region's width"


def number_near(words: list[str], text: str) -> float | None:
    """A number written right before or after one of the argument's words ('30 curves', 'seed 7')."""
    low = re.sub(r"\bone(?= times\b)", "1", digits(text.lower()))  # "forty-five curves" -> "45 curves", "one times" -> 1
    for w in words:
        stem = re.escape(w.rstrip("s"))
        # adjacent forms first, so "30 curves with seed 7" gives seed 7, not 30
        for pattern in (rf"\b{stem}s?\s*(?:=|:|of)?\s*{_NUMBER}", rf"{_NUMBER}\s+{stem}s?\b",
                        # "the fence inflation factor set to 1.0 instead of 1.5"
                        rf"\b{stem}s?\s+(?:(?:set|changed|lowered|raised|reduced|increased|fixed)\s+)?(?:to|at|equal to)\s+{_NUMBER}",
                        # "3 planted outliers", not "the default 100 points and noise" (the number counts the points)
                        rf"{_NUMBER}\s+(?:(?!(?:and|or|with|plus|but)\b)[a-z-]+\s+){{1,2}}?{stem}s?\b",
                        # "3 of them planted as outliers"
                        rf"{_NUMBER}\s+of (?:them|these|those|which)\s+(?:[a-z-]+\s+){{0,3}}?{stem}s?\b",
                        # "of which 15 should be planted outliers"
                        rf"{_NUMBER}\s+(?:should|will|must|shall|would|need to|are to|ought to)\s+be\s+(?:[a-z-]+\s+){{0,2}}?{stem}s?\b",
                        # "the fences at 3 times the central region's width"
                        rf"\b{stem}s?\s+at\s+{_NUMBER}\s*(?:times|x|×)"):
            m = re.search(pattern, low)
            if m:
                return float(m.group(1))
        # "20 ramps where half of them are planted outliers": a fraction of the count said before it
        m = re.search(rf"\b({'|'.join(_FRACTIONS)}) of (?:them|these|those|the \w+)\s+(?:[a-z-]+\s+){{0,3}}?{stem}s?\b", low)
        total = re.findall(_NUMBER, low[:m.start()]) if m else []
        if m and total:
            return float(total[-1]) * _FRACTIONS[m.group(1)]
    return None


_FRACTIONS = {"half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "2 thirds": 2 / 3, "a quarter": 0.25,
              "one quarter": 0.25, "3 quarters": 0.75}
"""Fractions as `number_near` sees them, after number words became digits ("two thirds" -> "2 thirds")."""


def _complete(schema: dict[str, Any], guess: dict[str, Any], step: PlanStep) -> bool:
    """True when the planner fixed every required argument: nothing is left for the model to decide."""
    required = set(schema.get("required") or ())
    return bool(step.args) and required <= set(guess)


class LLMInputGenerator:
    """Asks the model for JSON arguments matching the tool's schema; planner args always win."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.fallback = HeuristicInputGenerator()

    def generate(self, step: PlanStep, tool: Tool, ctx: ToolContext) -> dict[str, Any]:
        guess = self.fallback.generate(step, tool, ctx)
        schema = tool.input_schema or {"type": "object"}
        if not schema.get("properties") or _complete(schema, guess, step):
            return guess
        state = {k: summarize(v, 120) for k, v in dict(ctx.state).items() if not k.startswith("_")}
        lines = [
            f"Request: {ctx.request}",
            f"Step {step.step_num} goal: {step.goal}",
            f"Success criteria: {step.success_criteria}" if step.success_criteria else "",
            f"Context: {step.context}" if step.context else "",
            f"Tool: {tool.name}: {tool.description}",
            f"Input schema: {json.dumps(schema, separators=(',', ':'))}",
            f"Files: {', '.join(str(f) for f in ctx.files)}" if ctx.files else "",
            f"Run state: {json.dumps(state, separators=(',', ':'))}" if state else "",
            f"Suggested arguments: {json.dumps(guess, default=str)}" if guess else "",
            "Reply with only the JSON arguments for this tool.",
        ]
        prompt = "\n".join(line for line in lines if line)
        try:
            args = complete_json(self.llm, [Message("user", prompt)], schema, what="tool arguments")
        except LLMError:  # a model can only add: when it fails, the offline arguments stand
            return guess
        return {**args, **step.args}
