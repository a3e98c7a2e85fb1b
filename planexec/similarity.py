"""Scoring how well a text matches candidate descriptions: embeddings when available, keywords otherwise.

The heuristic planner and the capability search use one `Scorer`; each states its own
threshold because cosine similarity and keyword overlap live on different scales.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from planexec.tokenize import words

if TYPE_CHECKING:
    from planexec.protocols import Embedder

_STOP = frozenset(
    "a an the and or of to in on for with from by at as is are be it its this that these those "
    "me my i you your we our please then also give tell show what which how do does into their "
    "there them they all each any some".split()
)
_SYNONYMS = {
    "average": "mean", "avg": "mean", "mean": "mean",
    "neurons": "cell", "neuron": "cell", "cells": "cell", "rois": "cell", "roi": "cell",
    "spots": "cell", "spot": "cell",
    "plot": "plot", "plots": "plot", "draw": "plot", "visualize": "plot", "visualise": "plot",
    "figure": "plot", "chart": "plot",
    "transients": "transient", "events": "transient", "event": "transient", "spikes": "transient",
    "count": "count", "number": "count", "many": "count", "counting": "count",
    "statistics": "statistic", "stats": "statistic", "statistic": "statistic",
    "curves": "curve", "ensemble": "curve",
    "report": "report", "summary": "report", "summarize": "report", "summarise": "report",
}


def tokens(text: str) -> list[str]:
    """Lower-case content words with light stemming and a few domain synonyms."""
    return words(text, stop=_STOP, min_length=2, synonyms=_SYNONYMS, suffixes=("ing", "ed", "es", "s"))


class Scorer(Protocol):
    """Scores a query against documents; `threshold` is the least score that counts as a match."""

    name: str
    threshold: float

    def scores(self, query: str, docs: Sequence[str]) -> list[float]: ...


class KeywordScorer:
    """Overlap of content words, weighted by rarity among the documents (no model needed)."""

    name = "keyword"
    threshold = 0.12

    def scores(self, query: str, docs: Sequence[str]) -> list[float]:
        q = set(tokens(query))
        doc_tokens = [set(tokens(d)) for d in docs]
        if not q or not docs:
            return [0.0] * len(docs)
        n = len(docs)
        idf = {t: math.log(1 + n / (1 + sum(t in d for d in doc_tokens))) for t in q}
        total = sum(idf.values()) or 1.0
        return [sum(idf[t] for t in q & d) / total for d in doc_tokens]


_VECTORS: weakref.WeakKeyDictionary[object, dict[str, object]] = weakref.WeakKeyDictionary()
"""Document vectors per model object, shared by every scorer over it in a process: the action cards' ~3,500
texts are embedded once per process (and once per home with a disk cache), not once per run."""


class EmbeddingScorer:
    """Cosine similarity of sentence embeddings, caching document vectors by text."""

    name = "embedding"
    threshold = 0.35

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        base = getattr(embedder, "inner", embedder)  # a disk cache over the same model shares its vectors
        try:
            self._cache: dict[str, object] = _VECTORS.setdefault(base, {})
        except TypeError:  # an embedder that cannot be weakly referenced keeps its own
            self._cache = {}
        if not self._cache:  # the cards' texts, embedded once when they were shipped (planexec.card_vectors)
            from planexec.card_vectors import shipped_vectors

            self._cache.update(shipped_vectors(str(getattr(embedder, "name", ""))))

    def scores(self, query: str, docs: Sequence[str]) -> list[float]:
        import numpy as np

        missing = [d for d in dict.fromkeys(docs) if d not in self._cache]
        if missing:
            for d, v in zip(missing, self.embedder.embed(missing), strict=True):
                self._cache[d] = v
        if not docs:
            return []
        q = self.embedder.embed([query])[0]
        mat = np.stack([self._cache[d] for d in docs])
        return [float(s) for s in mat @ q]


def run_embedder(spec: str, given: Embedder | None = None) -> Embedder | None:
    """The embedder a run uses: the one given (Orchestrator(embedder=...)), else the model `spec`
    (Config.embedder) names, else None for 'none' (keyword matching)."""
    if given is not None:
        return given
    if spec == "none":
        return None
    from planexec.knowledge.embedder import get_embedder

    return get_embedder(spec)


def default_scorer(spec: str = "auto", cache_dir: Path | None = None, embedder: Embedder | None = None) -> Scorer:
    """The embedding scorer over `embedder` (else the local model `spec` names), or keywords when spec is 'none'.

    With `cache_dir`, vectors persist on disk by content hash (shared with the capability
    store's cache there), so a new process does not embed the same descriptions again.
    """
    model = run_embedder(spec, embedder)
    if model is None:
        return KeywordScorer()
    from planexec.knowledge.embedder import CachedEmbedder

    return EmbeddingScorer(CachedEmbedder(model, cache_dir) if cache_dir is not None else model)
