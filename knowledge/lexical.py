"""Lexical scoring (BM25) for hybrid retrieval: exact terms where sentence embeddings are weak.

MiniLM reads notations like "dF/F" or "ΔF/F" poorly; BM25 over normalised tokens finds them.
Notations that mean the same quantity are folded into one token first.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from planexec.knowledge.reuse import normalise_notation
from planexec.tokenize import words

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on for with is are be by as at it its this that how what which do does "
    "i we you should can could would use used using get compute computed computing calculate "
    "calculated tell me my our".split()
)


def lexical_tokens(text: str) -> list[str]:
    """Lower-case word stems with domain notations folded (dF/F, ΔF/F, delta F over F -> dff)."""
    return words(normalise_notation(text), pattern=_WORD, stop=_STOP,
                 suffixes=("ations", "ation", "ings", "ing", "ed", "es", "s"))


class BM25:
    """Okapi BM25 over a fixed list of documents."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tokens = [Counter(lexical_tokens(d)) for d in docs]
        self.lengths = [sum(t.values()) for t in self.tokens]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for t in self.tokens:
            df.update(t.keys())
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = [w for w in set(lexical_tokens(query)) if w in self.idf]
        out = []
        for tf, length in zip(self.tokens, self.lengths, strict=True):
            s = 0.0
            for w in terms:
                f = tf.get(w, 0)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * length / (self.avg or 1)))
            out.append(s)
        return out
