"""Before planning: check and load the run's inputs, retrieve knowledge, list stored capabilities."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from planexec.actions import CAPABILITY_TOOL
from planexec.config import Config
from planexec.errors import InputError
from planexec.events import ContextReady, LogMessage
from planexec.protocols import Embedder, Store
from planexec.rundata import RunData
from planexec.similarity import run_embedder
from planexec.state import RunState
from planexec.tools.base import Services


def check_inputs(files: Sequence[str | Path], images: str | Path | None) -> tuple[tuple[Path, ...], Path | None]:
    """Resolve input paths, raising one clear InputError for the first one that does not exist."""
    out = []
    for f in files:
        p = Path(f).expanduser()
        if not p.exists():
            raise InputError(f"file not found: {p}; check the path given with --file")
        out.append(p)
    img = Path(images).expanduser() if images is not None else None
    if img is not None and not img.exists():
        raise InputError(
            f"image input not found: {img}; pass a folder of frames, a TIFF or a .npy stack "
            "(make one with `planexec demo-data DIR`)"
        )
    return tuple(out), img


def capability_store(config: Config, embedder: Embedder | None = None) -> Store:
    """The capability store under the configured home, seeded with the starter library on first use."""
    from planexec.knowledge.embedder import HashingEmbedder
    from planexec.knowledge.store import CapabilityStore

    return CapabilityStore(config.home / "capabilities", embedder=run_embedder(config.embedder, embedder) or HashingEmbedder())


class Background:
    """Passages from the papers for the run's request, retrieved on first use.

    Only LLM prompts (planning, code generation) read them, so offline and fully reused runs
    never pay for building the index or embedding the request.
    """

    def __init__(self, run: RunState) -> None:
        self.run = run
        self._chunks: tuple[str, ...] | None = None
        self._lock = threading.Lock()

    def chunks(self) -> tuple[str, ...]:
        with self._lock:
            if self._chunks is None:
                self._chunks = self._retrieve()
            return self._chunks

    def _retrieve(self) -> tuple[str, ...]:
        from planexec.knowledge.rag import KnowledgeBase

        run = self.run
        embedder = run_embedder(run.config.embedder, run.services.embedder)
        if embedder is None or not run.config.rag or not run.config.papers().is_dir():
            return ()
        kb = KnowledgeBase(run.config.papers(), run.config.home / "knowledge", embedder=embedder)
        kb.build()
        rag = kb.retrieve(run.request, k=3)
        run.state.rag_chunks = [str(c) for c in rag.chunks]
        run.bus.emit(LogMessage("info", "background from " + ", ".join(dict.fromkeys(str(x) for x in rag.sources))))
        return tuple(rag.chunks)


def background(services: Services, state: RunData) -> tuple[str, ...]:
    """The run's background passages: retrieved lazily, or those a tool already put in the state."""
    retriever = services.background.peek()
    if retriever is not None:
        return retriever.chunks()
    return tuple(state.rag_chunks)


class ContextBuilder:
    """Loads images into the run's variables (by the registered ImageLoader), lists candidate capabilities,
    and sets up background retrieval."""

    def prepare(self, run: RunState) -> None:
        run.services.background.set(Background(run))
        if run.images is not None:
            run.services.image_loader.load(run)
        if CAPABILITY_TOOL in run.tools and run.images is not None:
            store = run.services.store.get(lambda: capability_store(run.config, run.services.embedder))
            run.capabilities = tuple(store.list())
        run.bus.emit(
            ContextReady(
                {"files": [str(f) for f in run.files], "images": str(run.images) if run.images else None,
                 "capabilities": len(run.capabilities)},
            )
        )
