"""Before planning: check and load the run's inputs, retrieve knowledge, list stored capabilities."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planexec.actions import CAPABILITY_TOOL
from planexec.config import Config
from planexec.datafiles import shipped
from planexec.errors import InputError
from planexec.events import ContextReady, LogMessage
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


def papers_dir(config: Config) -> Path:
    return Path(config.papers_dir) if config.papers_dir else shipped("papers")


def capability_store(config: Config) -> Any:
    """The capability store under the configured home, seeded with the starter library on first use."""
    from planexec.knowledge.embedder import get_embedder
    from planexec.knowledge.store import CapabilityStore

    return CapabilityStore(config.home / "capabilities", embedder=get_embedder(config.embedder))


def _load_images(path: Path, params: dict[str, Any]) -> Any:
    """The movie (loaded whole, or memory-mapped when large) and what was loaded; `params` may name
    fs, pixel_size, an HDF5 dataset, the axes and stream."""
    from planexec.tools.calcium_source import open_for_run

    return open_for_run(path, params)


def _acquisition_into_params(run: RunState, meta: Any) -> None:
    """The movie's own frame rate and pixel size become the run's parameters when nobody set them;
    an unknown rate is said out loud, since the capabilities then assume one."""
    acq = meta.acquisition
    if run.params.sources.get("fs") == "request":
        acq.fs_source = "stated in the request"
    if run.params.sources.get("pixel_size") == "request":
        acq.pixel_size_source = "stated in the request"
    values = run.state.setdefault("variables", {}).setdefault("params", {})
    for key, value, source in (("fs", acq.fs, acq.fs_source), ("pixel_size", acq.pixel_size, acq.pixel_size_source)):
        if value is not None and run.params.values.get(key) is None:  # the file's value; the user's wins
            run.params.values[key], run.params.sources[key] = value, source
            values[key] = value
    if acq.fs is None and run.params.values.get("fs") is None:
        from planexec.tools.calcium_meta import ASSUMED_FS

        run.params.sources["fs"] = f"not recorded, not given: analyses assume {ASSUMED_FS:g} Hz"
        run.bus.emit(LogMessage("warning", f"the movie records no frame rate and none was given: analyses that need "
                                           f"one assume {ASSUMED_FS:g} Hz, times are reported in frames; pass --fs HZ"))


class Background:
    """Passages from the papers for the run's request, retrieved on first use.

    Only LLM prompts (planning, code generation) read them, so offline and fully reused runs
    never pay for building the index or embedding the request.
    """

    SERVICE = "background"

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
        from planexec.knowledge.embedder import get_embedder
        from planexec.knowledge.rag import KnowledgeBase

        run = self.run
        if run.config.embedder == "none" or not run.config.rag or not papers_dir(run.config).is_dir():
            return ()
        kb = KnowledgeBase(papers_dir(run.config), run.config.home / "knowledge", embedder=get_embedder(run.config.embedder))
        kb.build()
        rag = kb.retrieve(run.request, k=3)
        run.state["rag_chunks"] = list(rag.chunks)
        run.state["rag_sources"] = list(rag.sources)
        run.bus.emit(LogMessage("info", "background from " + ", ".join(dict.fromkeys(str(x) for x in rag.sources))))
        return tuple(rag.chunks)


def background(services: Services, state: dict[str, Any]) -> tuple[str, ...]:
    """The run's background passages: retrieved lazily, or those a tool already put in the state."""
    if services.has(Background.SERVICE):
        return services.get(Background.SERVICE).chunks()
    return tuple(str(c) for c in state.get("rag_chunks") or ())


class ContextBuilder:
    """Loads images into the run's variables, lists candidate capabilities, and sets up background retrieval."""

    def prepare(self, run: RunState) -> None:
        variables = run.state.setdefault("variables", {})
        run.services.set(Background.SERVICE, Background(run))
        if run.images is not None:
            movie = _load_images(run.images, run.params.values)
            run.services.set("movie", movie)  # closed with the run: removes a temporary copy of the movie
            variables["images"], meta = movie.images, movie.meta
            run.state["stack_meta"] = meta
            _acquisition_into_params(run, meta)
            for warning in [*(getattr(meta, "skipped", ()) or ()), *([meta.axes_note] if meta.axes_note else [])]:
                run.bus.emit(LogMessage("warning", str(warning)))
        if CAPABILITY_TOOL in run.tools and run.images is not None:
            store = run.services.get("capability_store", lambda: capability_store(run.config))
            run.capabilities = tuple(store.list())
        run.bus.emit(
            ContextReady(
                {"files": [str(f) for f in run.files], "images": str(run.images) if run.images else None,
                 "capabilities": len(run.capabilities)},
            )
        )
