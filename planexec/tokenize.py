"""Words for keyword matching: one tokenizer; each use names its stop words, synonyms and suffixes.

The planner's keyword scorer and the papers' BM25 index keep different vocabularies on
purpose (their scores are calibrated on them), so they share this code, not one word list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

WORDS = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
"""Identifiers: a letter, then letters, digits or underscores."""


def words(text: str, *, pattern: re.Pattern[str] = WORDS, stop: frozenset[str] = frozenset(),
          min_length: int = 1, synonyms: Mapping[str, str] | None = None,
          suffixes: tuple[str, ...] = (), min_stem: int = 4) -> list[str]:
    """Lower-case words of `text` not in `stop` (nor shorter than `min_length`), each mapped
    through `synonyms`, then stemmed by the first of `suffixes` leaving at least `min_stem` letters."""
    out = []
    for word in pattern.findall(text.lower()):
        if word in stop or len(word) < min_length:
            continue
        word = synonyms.get(word, word) if synonyms else word
        for suffix in suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= min_stem:
                word = word[: -len(suffix)]
                break
        out.append(word)
    return out
