from __future__ import annotations

import pytest

from planexec.knowledge.calibration import evaluate, load_pairs
from planexec.knowledge.reuse import compare_terms, extract_terms, io_agreement
from planexec.knowledge.store import CapabilityStore


def test_contrast_terms_and_parameters() -> None:
    t = extract_terms("Compute ΔF/F with the 20th percentile baseline and a 150-frame window")
    assert t.groups["normalization"] == {"dff"} and (20.0, "pct") in t.numbers and (150.0, "frame") in t.numbers
    med = extract_terms("median absolute deviation of each trace")
    assert med.groups["statistic"] == {"mad"}
    cmp = compare_terms(extract_terms("Pearson correlation"), extract_terms("Spearman correlation of traces"))
    assert cmp.conflicts and "pearson" in cmp.conflicts[0]
    ok = compare_terms(extract_terms("mean amplitude"), extract_terms("mean and median amplitude per cell"))
    assert not ok.conflicts and ok.agreements == 2
    code = compare_terms(extract_terms("segment with Otsu"), extract_terms("segment cells"),
                         None)
    assert code.unspecified and not code.conflicts


def test_io_agreement() -> None:
    assert io_agreement(["traces"], ["dff"], ["trace"], ["dff"]) == 1.0
    assert io_agreement(["images"], ["labels"], ["traces"], ["dff"]) == 0.0
    assert io_agreement(None, None, ["x"], ["y"]) is None


@pytest.fixture(scope="module")
def calibration_store(tmp_path_factory, minilm):
    caps, pairs = load_pairs()
    store = CapabilityStore(tmp_path_factory.mktemp("cal"), minilm, seed=False)
    store.save_many(caps)
    yield store, pairs
    store.close()


def test_reuse_decision_precision_and_recall_on_labelled_pairs(calibration_store) -> None:
    store, pairs = calibration_store
    report = evaluate(store, pairs)
    print("\n" + "\n".join(report.lines()))
    assert report.n_pairs >= 60 and report.n_hard_negative >= 20
    assert report.precision >= 0.95 and report.recall >= 0.90
    # plain cosine cannot separate paraphrases from hard negatives on the same pairs
    assert report.cosine_precision < 0.8


def test_find_reusable_end_to_end_picks_the_labelled_capability(calibration_store) -> None:
    store, pairs = calibration_store
    positives = [p for p in pairs if p.reuse]
    hits = [store.find_reusable(p.query) for p in positives]
    right = sum(m is not None and m.capability.id == p.capability for m, p in zip(hits, positives, strict=True))
    wrong = sum(m is not None and m.capability.id != p.capability for m, p in zip(hits, positives, strict=True))
    print(f"\nend to end: {right}/{len(positives)} reuse the labelled capability, {wrong} reuse another")
    assert right / len(positives) >= 0.85 and wrong <= 2
