"""`rag_retrieval`: passages from the method papers that answer a question, with sources and scores."""

from __future__ import annotations

import re

from planexec.errors import ToolError, UsageError
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.decorator import tool


def _knowledge_base(ctx: ToolContext | None):  # noqa: ANN202 - returns planexec.knowledge.KnowledgeBase
    from planexec.config import Config
    from planexec.knowledge.embedder import CachedEmbedder, HashingEmbedder
    from planexec.knowledge.rag import KnowledgeBase
    from planexec.similarity import run_embedder

    config = (ctx.config if ctx else None) or Config.from_env()
    index_dir = config.home / "knowledge"
    model = run_embedder(config.embedder, ctx.services.embedder if ctx else None) or HashingEmbedder()
    embedder = CachedEmbedder(model, index_dir)
    return KnowledgeBase(config.papers(), index_dir, embedder)


_EXCERPT = 240
"""Characters of each passage shown in the step's summary (the results hold every passage in full)."""


def _excerpt(text: str, query: str) -> str:
    """The passage from its sentence sharing most words with the query, cut at about _EXCERPT characters."""
    flat = " ".join(text.split())
    asked = {w for w in re.findall(r"\w+", query.lower()) if len(w) > 3}
    starts = [0, *(m.end() for m in re.finditer(r"[.!?]\s+", flat))]
    ends = [*starts[1:], len(flat)]
    shared = [len(asked & set(re.findall(r"\w+", flat[a:b].lower()))) for a, b in zip(starts, ends, strict=True)]
    part = flat[starts[shared.index(max(shared))]:]
    return part if len(part) <= _EXCERPT else part[:_EXCERPT].rsplit(" ", 1)[0] + " …"


@tool(type="knowledge")
def rag_retrieval(query: str, k: int = 3, ctx: ToolContext | None = None) -> ToolOutput:
    """Search the method papers (segmentation, transient detection, baseline and ΔF/F, functional boxplots) and return the most relevant passages with their sources and scores."""
    if k < 1:
        raise ToolError("k must be at least 1")
    services = ctx.services if ctx else None
    kb = services.knowledge.get(lambda: _knowledge_base(ctx)) if services else _knowledge_base(ctx)
    try:
        found = kb.retrieve(query, k)
    except UsageError as exc:
        raise ToolError(f"rag_retrieval: {exc}") from None
    passages = [
        {"text": text, "source": src, "score": round(score, 4)}
        for text, src, score in zip(found.chunks, found.sources, found.scores, strict=True)
    ]
    # the answer to a question put to the papers is what the passages say, not only where they are
    summary = f"{len(passages)} passage(s) for {query!r}: " + "; ".join(
        f"{p['source']} ({p['score']:.2f}): \"{_excerpt(p['text'], query)}\"" for p in passages
    )
    return ToolOutput(value={"query": query, "passages": passages}, summary=summary,
                      state={"rag_chunks": [p["text"] for p in passages]})


TOOLS = [rag_retrieval]
