from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import UsageError
from planexec.knowledge.chunking import split_text

words = st.text(alphabet="abcdefgh .,!?\n", min_size=0, max_size=3000)


@settings(max_examples=150, deadline=None)
@given(text=words, size=st.integers(20, 400), frac=st.floats(0, 0.9))
def test_chunks_cover_text_bounded_and_overlap_respected(text: str, size: int, frac: float) -> None:
    overlap = min(int(size * frac), size - 1)
    chunks = split_text(text, size, overlap)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for c in chunks:
        assert c.text == text[c.start : c.end]
        assert 0 < len(c.text) <= size
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert a.start < b.start <= a.end  # no gap: nothing is lost
        assert a.end - b.start <= overlap  # overlap never exceeds the setting


def test_prefers_paragraph_then_sentence_boundaries() -> None:
    para = "First paragraph sentence one. Sentence two is here.\n\nSecond paragraph starts. " * 3
    chunks = split_text(para, 120, 20)
    assert all(c.text.endswith(("\n\n", ". ", ".")) or c.end == len(para) for c in chunks)


def test_rejects_bad_settings() -> None:
    with pytest.raises(UsageError, match="overlap"):
        split_text("abc", 100, 100)
