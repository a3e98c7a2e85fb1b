"""Knowledge: local embeddings, a FAISS vector index, RAG over method papers, and the
dulwich-versioned capability store with its calibrated reuse decision.

Importing this package loads no model and no FAISS; those load on first use.
"""

from __future__ import annotations

if __name__ != "planexec.knowledge":
    raise ImportError("this folder is planexec.knowledge; import planexec.knowledge, not knowledge")

from planexec.knowledge.calibration import CalibrationReport, Pair, calibrate, evaluate, load_pairs
from planexec.knowledge.capability import Capability, Match
from planexec.knowledge.chunking import Chunk, split_text
from planexec.knowledge.embedder import (
    CachedEmbedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    get_embedder,
)
from planexec.knowledge.index import VectorIndex
from planexec.knowledge.memory import MemoryStore
from planexec.knowledge.rag import BuildReport, KnowledgeBase, RAGContext, default_papers_dir
from planexec.knowledge.reuse import ReusePolicy, extract_terms
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import CapabilityStore, default_seed_dir

__all__ = [
    "BuildReport",
    "CachedEmbedder",
    "CalibrationReport",
    "MemoryStore",
    "Capability",
    "CapabilityStore",
    "Chunk",
    "HashingEmbedder",
    "KnowledgeBase",
    "Match",
    "Pair",
    "RAGContext",
    "ReusePolicy",
    "SentenceTransformerEmbedder",
    "VectorIndex",
    "calibrate",
    "default_papers_dir",
    "default_seed_dir",
    "evaluate",
    "extract_terms",
    "get_embedder",
    "load_pairs",
    "read_capability_dir",
    "split_text",
]
