from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planexec.errors import InputError
from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.rag import KnowledgeBase, default_papers_dir


@pytest.fixture(scope="module")
def kb(tmp_path_factory, minilm) -> KnowledgeBase:
    kb = KnowledgeBase(default_papers_dir(), tmp_path_factory.mktemp("kidx"), minilm)
    kb.build()
    return kb


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("How do I split touching cells into separate objects?", "cell_segmentation.md"),
        ("Which percentile should be used as the F0 baseline?", "baseline_dff.md"),
        ("What prominence should find_peaks use to detect transients?", "transient_detection.md"),
        ("How is the modified band depth of a curve computed?", "functional_boxplots.md"),
        ("How are outlier curves flagged in a functional boxplot?", "functional_boxplots.md"),
        # notations the embedding model reads poorly; the lexical half of the search finds them
        ("how is dF/F computed", "baseline_dff.md"),
        ("how is dff computed", "baseline_dff.md"),
        ("delta F over F normalisation of the traces", "baseline_dff.md"),
    ],
)
def test_retrieval_finds_the_right_paper(kb: KnowledgeBase, question: str, paper: str) -> None:
    found = kb.retrieve(question, k=3)
    assert found.sources[0] == paper
    assert len(found) == 3 and found.scores == sorted(found.scores, reverse=True)


def _copy_papers(dst: Path) -> Path:
    shutil.copytree(default_papers_dir(), dst)
    return dst


def test_incremental_rebuild_embeds_only_changed_papers(tmp_path: Path) -> None:
    papers = _copy_papers(tmp_path / "papers")
    kb = KnowledgeBase(papers, tmp_path / "idx", HashingEmbedder())
    first = kb.build()
    assert first.full and first.embedded_papers == 4
    assert kb.build().embedded_chunks == 0
    (papers / "baseline_dff.md").write_text("# Baseline\n\nA new note about running percentiles.\n")
    (papers / "transient_detection.md").unlink()
    again = KnowledgeBase(papers, tmp_path / "idx", HashingEmbedder()).build()
    assert (again.embedded_papers, again.removed_papers, again.full) == (1, 1, False)
    assert again.papers == 3
    full = kb.build(rebuild=True)
    assert full.full and full.embedded_papers == 3 and full.total_chunks == again.total_chunks


def test_other_embedding_model_is_detected_and_rebuilt(tmp_path: Path) -> None:
    KnowledgeBase(default_papers_dir(), tmp_path, HashingEmbedder(384)).build()
    report = KnowledgeBase(default_papers_dir(), tmp_path, HashingEmbedder(128)).build()
    assert report.full and report.embedded_papers == 4


def test_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        KnowledgeBase(tmp_path / "missing", tmp_path / "i", HashingEmbedder()).build()
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no papers"):
        KnowledgeBase(tmp_path / "empty", tmp_path / "i", HashingEmbedder()).build()
    papers = _copy_papers(tmp_path / "papers")
    (papers / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    report = KnowledgeBase(papers, tmp_path / "i2", HashingEmbedder()).build()
    assert report.papers == 4 and any("broken.pdf" in w for w in report.warnings)


def test_dense_alone_misses_notation_queries_that_hybrid_finds(kb: KnowledgeBase) -> None:
    """The reason for the lexical half: cosine alone ranks another paper first for 'dF/F'."""
    weight = kb.lexical_weight
    try:
        kb.lexical_weight = 0.0
        dense_only = kb.retrieve("how is dF/F computed", k=1).sources[0]
    finally:
        kb.lexical_weight = weight
    assert dense_only != "baseline_dff.md"
    assert kb.retrieve("how is dF/F computed", k=1).sources[0] == "baseline_dff.md"


def test_bm25_folds_notations_and_prefers_rare_terms() -> None:
    from planexec.knowledge.lexical import BM25, lexical_tokens

    assert lexical_tokens("ΔF/F and dF/F0 and delta F over F") == ["dff", "dff", "dff"]
    docs = ["the baseline of the dff trace", "a trace of the curve", "the curve depth of a curve"]
    scores = BM25(docs).scores("dF/F trace")
    assert scores[0] > scores[1] > scores[2] == 0.0


def test_the_summary_quotes_each_passage_from_its_sentence_nearest_the_question() -> None:
    from planexec.tools.rag import _excerpt

    text = ("Raw fluorescence depends on expression. " * 8 + "Take a low percentile of the trace, for example "
            "F0 = np.percentile(trace, 10). Later text about something else entirely.")
    quoted = _excerpt(text, "which percentile is suggested for F0?")
    assert quoted.startswith("Take a low percentile") and "np.percentile(trace, 10)" in quoted
    assert len(_excerpt("word " * 400, "anything")) <= 242
