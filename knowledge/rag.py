"""RAG over method papers: load .txt/.md/.pdf, chunk, embed, index, persist, retrieve.

A manifest of file hashes makes a rebuild embed only the papers that changed; an index
built with another embedding model or other chunk settings is detected and rebuilt.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.errors import ENV_ERRNOS, InputError, UsageError
from planexec.knowledge.chunking import split_text
from planexec.knowledge.fsutil import atomic_write_text, sha256_bytes
from planexec.knowledge.index import VectorIndex
from planexec.knowledge.lexical import BM25

if TYPE_CHECKING:
    from planexec.protocols import Embedder

log = logging.getLogger(__name__)

PAPER_SUFFIXES = (".txt", ".md", ".pdf")
Progress = Callable[[int, int], None]


@dataclass
class RAGContext:
    """Retrieved chunks, best first, with their source file names and cosine scores."""

    chunks: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    metadata: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.chunks)


@dataclass
class BuildReport:
    """What a build did: papers seen, papers (re)embedded, chunks, skipped files with why."""

    papers: int = 0
    embedded_papers: int = 0
    embedded_chunks: int = 0
    total_chunks: int = 0
    removed_papers: int = 0
    full: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


def default_papers_dir() -> Path:
    """$PLANEXEC_PAPERS_DIR (or its old name $PLANEXEC_PAPERS), else the packaged data/papers."""
    from planexec.config import Config

    return Config.from_env().papers()


def read_paper(path: Path) -> str:
    """The text of a .txt, .md or .pdf file; raises ValueError when it cannot be read."""
    if path.suffix.lower() == ".pdf":
        from pypdf import PdfReader

        try:
            reader = PdfReader(str(path))
            return "\n\n".join((page.extract_text() or "") for page in reader.pages)
        except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on broken files
            raise ValueError(f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    return path.read_text(encoding="utf-8", errors="replace")


class KnowledgeBase:
    """Papers in `papers_dir`, indexed in `index_dir`; `retrieve()` builds on first use."""

    def __init__(
        self,
        papers_dir: Path | str,
        index_dir: Path | str,
        embedder: Embedder | None = None,
        chunk_size: int = 1000,
        overlap: int = 200,
    ) -> None:
        self.papers_dir = Path(papers_dir)
        self.index_dir = Path(index_dir)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._chunks: dict[str, dict[str, Any]] = {}
        self._bm25: BM25 | None = None
        self._bm25_ids: list[str] = []
        self.lexical_weight = 0.3

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from planexec.knowledge.embedder import CachedEmbedder, get_embedder

            self._embedder = CachedEmbedder(get_embedder("auto"), self.index_dir)
        return self._embedder

    def _paper_files(self) -> list[Path]:
        if not self.papers_dir.exists():
            raise InputError(f"papers folder {self.papers_dir} does not exist; create it or pass --papers DIR")
        if not self.papers_dir.is_dir():
            raise InputError(f"papers path {self.papers_dir} is not a folder; pass the folder holding the papers")
        files = sorted(
            p for p in self.papers_dir.rglob("*") if p.is_file() and p.suffix.lower() in PAPER_SUFFIXES
        )
        if not files:
            raise InputError(
                f"no papers (.txt, .md, .pdf) in {self.papers_dir}; add some or pass --papers DIR"
            )
        return files

    def _settings(self) -> dict[str, Any]:
        return {"model": self.embedder.name, "chunk_size": self.chunk_size, "overlap": self.overlap}

    def build(self, rebuild: bool = False, progress: Progress | None = None) -> BuildReport:
        """Index the papers, embedding only files whose content changed (all with `rebuild`)."""
        from filelock import FileLock

        if self.index_dir.exists() and not self.index_dir.is_dir():
            raise UsageError(f"knowledge index path {self.index_dir} is a file; pass a folder")
        try:
            self.index_dir.mkdir(parents=True, exist_ok=True)
            lock: Any = FileLock(str(self.index_dir / ".lock"))
            lock.acquire()
        except OSError as exc:  # a read-only or full home: use (or build in memory) what is there
            if exc.errno not in ENV_ERRNOS:
                raise
            return self._build_locked(rebuild, progress, save=False)
        try:
            return self._build_locked(rebuild, progress)
        finally:
            lock.release()

    def _build_locked(self, rebuild: bool, progress: Progress | None, save: bool = True) -> BuildReport:
        t0 = time.perf_counter()
        report = BuildReport()
        files = self._paper_files()
        manifest = self._read_manifest()
        index = VectorIndex.load(self.index_dir)
        chunks = manifest.get("chunks") if isinstance(manifest.get("chunks"), dict) else {}
        files_ok = isinstance(manifest.get("files"), dict) and all(
            isinstance(f, dict) and isinstance(f.get("sha256"), str) and isinstance(f.get("chunk_ids"), list)
            for f in manifest["files"].values()
        )
        stale = (
            rebuild
            or not files_ok
            or index is None
            or manifest.get("settings") != self._settings()
            or set(index.ids()) != set(chunks)
            or index.dim != self.embedder.dim
            or not all(isinstance(c, dict) and isinstance(c.get("text"), str) for c in chunks.values())
        )
        if stale and not rebuild and (self.index_dir / "manifest.json").exists():
            msg = f"knowledge index in {self.index_dir} was damaged or out of date; rebuilt from the papers"
            log.warning(msg)
            report.warnings.append(msg)
        if stale:
            index = VectorIndex(self.embedder.dim, self.embedder.name)
            chunks, known = {}, {}
            report.full = True
        else:
            known = dict(manifest.get("files", {}))
        assert index is not None
        current: dict[str, dict[str, Any]] = {}
        todo: list[tuple[str, str, list[Any]]] = []
        for path in files:
            rel = path.relative_to(self.papers_dir).as_posix()
            digest = sha256_bytes(path.read_bytes())
            if rel in known and known[rel]["sha256"] == digest:
                current[rel] = known[rel]
                continue
            try:
                text = read_paper(path)
            except (ValueError, OSError) as exc:
                msg = f"skipped {rel}: {exc}"
                log.warning(msg)
                report.warnings.append(msg)
                continue
            pieces = [c for c in split_text(text, self.chunk_size, self.overlap) if c.text.strip()]
            todo.append((rel, digest, pieces))
        for rel in set(known) - set(current):  # changed or deleted papers: drop their chunks
            old = known[rel].get("chunk_ids", [])
            index.remove(old)
            for cid in old:
                chunks.pop(cid, None)
            report.removed_papers += rel not in {t[0] for t in todo}
        total = sum(len(p) for _, _, p in todo)
        done = 0
        if progress:
            progress(0, total)
        for rel, digest, pieces in todo:
            ids = [f"{rel}#{i}:{digest[:12]}" for i in range(len(pieces))]
            for start in range(0, len(pieces), 32):
                batch = pieces[start : start + 32]
                index.add(ids[start : start + 32], self.embedder.embed([c.text for c in batch]))
                done += len(batch)
                if progress:
                    progress(done, total)
            for cid, c, i in zip(ids, pieces, range(len(pieces)), strict=True):
                chunks[cid] = {"source": rel, "chunk": i, "start": c.start, "end": c.end, "text": c.text}
            current[rel] = {"sha256": digest, "chunk_ids": ids}
            report.embedded_papers += 1
            report.embedded_chunks += len(pieces)
        if save and (stale or todo or report.removed_papers or set(current) != set(known)):
            index.save(self.index_dir)
            manifest = {"settings": self._settings(), "files": current, "chunks": chunks}
            atomic_write_text(self.index_dir / "manifest.json", json.dumps(manifest))
        self._index, self._chunks = index, chunks
        report.papers = len(current)
        report.total_chunks = len(chunks)
        report.seconds = time.perf_counter() - t0
        return report

    def _read_manifest(self) -> dict[str, Any]:
        try:
            data = json.loads((self.index_dir / "manifest.json").read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _hybrid(self, query: str, k: int) -> list[tuple[str, float]]:
        """Dense cosine blended with BM25 (scaled to the best lexical hit): `lexical_weight` of each score."""
        assert self._index is not None
        dense = dict(self._index.search(self.embedder.embed([query])[0], max(4 * k, 20)))
        ids = sorted(self._chunks)
        if self._bm25 is None or self._bm25_ids != ids:
            self._bm25 = BM25([self._chunks[i]["text"] for i in ids])
            self._bm25_ids = ids
        lexical = dict(zip(ids, self._bm25.scores(query), strict=True))
        top = max(lexical.values(), default=0.0) or 1.0
        w = self.lexical_weight
        pool = set(dense) | {i for i, s in lexical.items() if s > 0}
        scored = [(i, (1 - w) * dense.get(i, 0.0) + w * lexical.get(i, 0.0) / top) for i in pool]
        return sorted(scored, key=lambda kv: -kv[1])[:k]

    def retrieve(self, query: str, k: int = 3) -> RAGContext:
        """The `k` chunks closest to `query` (the index is brought up to date on first use)."""
        if not query.strip():
            raise UsageError("empty query: ask a question, e.g. 'how is the ΔF/F baseline chosen?'")
        if self._index is None:
            self.build()
        assert self._index is not None
        hits = self._hybrid(query, k)
        ctx = RAGContext()
        for cid, score in hits:
            info = self._chunks[cid]
            ctx.chunks.append(info["text"].strip())
            ctx.sources.append(info["source"])
            ctx.scores.append(score)
            ctx.metadata.append({k: v for k, v in info.items() if k != "text"} | {"id": cid})
        return ctx
