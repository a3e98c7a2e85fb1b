"""Tool learning: success records per (goal neighbourhood, tool) reorder a step's primary tools.

A goal's neighbourhood is the set of recorded goals whose embedding has cosine similarity of
at least `embedding_similarity` with it (the run's local embedder), or, offline without a
model, whose content words overlap it by at least `similarity` (Jaccard). Only with
`min_evidence` records per tool is the order changed, and the change is announced as a
ToolsReordered event.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planexec.atomic import atomic_write_text
from planexec.config import Config
from planexec.events import ToolsReordered
from planexec.models import PlanStep, ToolAttempt
from planexec.protocols import Embedder
from planexec.similarity import tokens
from planexec.state import RunState

log = logging.getLogger(__name__)


@dataclass
class ToolLearner:
    """Keeps tool outcomes by goal in an append-only JSON-lines file; orders primary tools by record."""

    path: Path
    min_evidence: int = 3
    similarity: float = 0.5
    embedder: Callable[[], Embedder | None] | None = None
    """Returns the embedder for goal neighbourhoods (called only when an order is decided)."""
    embedding_similarity: float = 0.7
    max_records: int = 20_000
    """The newest records kept; older ones are dropped when the file is next read."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._vectors: dict[str, Any] = {}
        self._records: list[dict[str, Any]] | None = None
        self._unsaved = False

    def _load(self) -> list[dict[str, Any]]:
        if self._records is None:
            records = []
            try:
                for line in self.path.read_text(encoding="utf-8").splitlines():
                    try:
                        records.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue  # a line cut by a crash
            except FileNotFoundError:
                pass
            if len(records) > self.max_records:
                records = records[-self.max_records:]
                self._rewrite(records)
            self._records = records
        return self._records

    def _rewrite(self, records: list[dict[str, Any]]) -> None:
        """Keep only the newest records on disk (atomic replace), so the file stays bounded."""
        try:
            atomic_write_text(self.path, "".join(json.dumps(r) + "\n" for r in records), sync=False)
        except OSError as exc:
            log.warning("tool records in %s not trimmed (%s)", self.path, exc.strerror)

    def rates(self, goal: str, tools: tuple[str, ...]) -> dict[str, tuple[float, int]]:
        """Success rate and evidence count of each tool on goals like this one."""
        tally: dict[str, list[int]] = {t: [0, 0] for t in tools}
        with self._lock:
            records = [r for r in self._load() if r.get("tool") in tally]
        near = self._neighbours(goal, records)
        for rec, close in zip(records, near, strict=True):
            if close:
                tally[rec["tool"]][0] += int(bool(rec.get("ok")))
                tally[rec["tool"]][1] += 1
        return {t: (ok / n if n else 0.0, n) for t, (ok, n) in tally.items()}

    def _neighbours(self, goal: str, records: list[dict[str, Any]]) -> list[bool]:
        """Which records' goals lie in this goal's neighbourhood."""
        embedder = self.embedder() if self.embedder else None
        if embedder is not None and records:
            texts = [goal] + [r.get("goal") or " ".join(r.get("words", ())) for r in records]
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
            if missing:
                self._vectors.update(zip(missing, embedder.embed(missing), strict=True))
            q = self._vectors[goal]
            return [float(self._vectors[t] @ q) >= self.embedding_similarity for t in texts[1:]]
        words = set(tokens(goal))
        out = []
        for rec in records:
            other = set(rec.get("words", ()))
            union = words | other
            out.append(bool(union) and len(words & other) / len(union) >= self.similarity)
        return out

    def order(self, step: PlanStep, run: RunState) -> tuple[str, ...]:
        primary = step.primary_tools
        if len(primary) > 1:
            rates = self.rates(step.goal, primary)
            if all(n >= self.min_evidence for _, n in rates.values()):
                ranked = tuple(sorted(primary, key=lambda t: -rates[t][0]))
                if ranked != primary:
                    why = ", ".join(f"{t} {rates[t][0]:.0%} of {rates[t][1]}" for t in ranked)
                    run.bus.emit(ToolsReordered(step.step_num, primary, ranked, f"past success on similar goals: {why}"))
                    primary = ranked
        return primary + tuple(t for t in step.fallback_tools if t not in primary)

    def observe(self, step: PlanStep, attempts: tuple[ToolAttempt, ...]) -> None:
        """Record each attempt's outcome for this goal (one appended line each)."""
        if not attempts:
            return
        words = sorted(set(tokens(step.goal)))
        new = [{"tool": a.tool, "ok": bool(a.ok), "goal": step.goal, "words": words} for a in attempts]
        with self._lock:
            self._load().extend(new)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write("".join(json.dumps(r) + "\n" for r in new))
            except OSError as exc:  # a read-only or full home: the record stays in memory, the run goes on
                level = logging.DEBUG if self._unsaved else logging.WARNING
                self._unsaved = True
                log.log(level, "tool records not saved to %s (%s)", self.path, exc.strerror)


def tool_learner(config: Config, embedder: Embedder | None = None) -> ToolLearner | None:
    """The learner for this configuration (goal neighbourhoods by `embedder`, else the configured
    model), or None when tool learning is off."""
    if not config.tool_learning:
        return None
    from planexec.similarity import run_embedder

    return ToolLearner(Path(config.home) / "capabilities" / "tool_stats.jsonl",
                       embedder=lambda: run_embedder(config.embedder, embedder))
