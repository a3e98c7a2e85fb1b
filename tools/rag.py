"""`rag_retrieval`: passages from the method papers that answer a question, with sources and scores."""

from __future__ import annotations

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
    summary = f"{len(passages)} passage(s) for {query!r}: " + ", ".join(
        f"{p['source']} ({p['score']:.2f})" for p in passages
    )
    return ToolOutput(value={"query": query, "passages": passages}, summary=summary,
                      state={"rag_chunks": [p["text"] for p in passages]})


TOOLS = [rag_retrieval]
