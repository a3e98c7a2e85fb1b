"""Recursive text splitting: chunks of at most `size` characters that end on a paragraph,
else a sentence, else a word boundary, each starting up to `overlap` characters back."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planexec.errors import UsageError

# Boundary kinds, most preferred first: paragraph break, sentence end, any whitespace.
_BOUNDARIES = (re.compile(r"\n\s*\n"), re.compile(r"[.!?;:](?=\s)|\n"), re.compile(r"\s"))


@dataclass(frozen=True)
class Chunk:
    """`text == source[start:end]` of the document it came from."""

    text: str
    start: int
    end: int


def _cut(text: str, start: int, limit: int, min_len: int) -> int:
    """Where to end a chunk that starts at `start` and may not pass `limit`."""
    for pattern in _BOUNDARIES:
        best = -1
        for m in pattern.finditer(text, start + min_len, limit):
            best = m.end() if pattern is not _BOUNDARIES[2] else m.start() + 1
        if best > start and best <= limit:
            return best
    return limit


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Start of the next chunk: the first word start within `overlap` characters before `end`."""
    lo = max(start + 1, end - overlap)
    if lo >= end:
        return end
    m = re.compile(r"(?<=\s)\S").search(text, lo, end)
    return m.start() if m else end


def split_text(text: str, size: int = 1000, overlap: int = 200) -> list[Chunk]:
    """Split `text` into overlapping chunks; together they cover every character."""
    if size <= 0 or overlap < 0 or overlap >= size:
        raise UsageError(f"chunk size {size} and overlap {overlap}: need size > 0 and 0 <= overlap < size")
    chunks: list[Chunk] = []
    start, n = 0, len(text)
    while start < n:
        limit = min(start + size, n)
        end = n if limit == n else _cut(text, start, limit, size // 2)
        chunks.append(Chunk(text[start:end], start, end))
        if end >= n:
            break
        start = _next_start(text, start, end, overlap)
    return chunks
