"""What a clause asks for by name, and whether a step's results name it (planexec.asked)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec.asked import asked_phrase, unexplained


@pytest.mark.parametrize(("clause", "phrase"), [
    ("what fraction of the neurons fire at least one transient?", "fraction"),
    ("give me the peak dF/F of every ROI", "peak dF/F"),
    ("report their areas in pixels", "areas"),
    ("What is the mean amplitude of the transients?", "mean amplitude"),
    ("what's the average revenue in this table", "average revenue"),
    ("estimate the decay time constant of the calcium indicator", "decay time constant"),
    ("tell me which curves are outliers", ""),
    ("forecast next month's revenue", "forecast next month's revenue"),
    ("predict revenue for next quarter", "predict revenue"),
    ("Count the cells in the images", "Count the cells"),
    ("plot the dF/F traces with the detected events marked", ""),
])
def test_the_asked_phrase(clause: str, phrase: str) -> None:
    assert asked_phrase(clause) == phrase


@pytest.mark.parametrize(("phrase", "names", "missing"), [
    ("fraction", ["Deconvolve spikes (OASIS) and detect events", "spks", "events", "n_transients"], ["fraction"]),
    ("peak dF/F", ["Event statistics", "mean_amplitude", "events_per_cell", "event_rate"], ["peak"]),
    ("areas", ["Extract per-cell traces", "roi_traces", "mean_trace"], ["areas"]),
    ("areas", ["Region properties", "regions", "area", "eccentricity"], []),
    ("average revenue", ["Describe table", "mean_revenue"], []),
    ("decay time constant", ["Deconvolve spikes", "tau_used"], []),
    ("mean firing rate", ["Event statistics", "mean_amplitude", "event_rate"], []),
    ("resting fluorescence F0", ["Running percentile baseline"], []),  # no quantity word: coverage judged it
    ("largest diameter", ["Region properties", "diameter", "area"], ["largest"]),
    ("standard deviations", ["describe", "std"], []),
    ("predict revenue", ["Describe table", "mean_revenue"], ["predict"]),
])
def test_quantity_words_must_be_named_by_the_results(phrase: str, names: list[str], missing: list[str]) -> None:
    assert unexplained(phrase, names) == missing


@given(st.text(max_size=80))
def test_any_text_gives_a_phrase_that_its_own_words_explain(text: str) -> None:
    phrase = asked_phrase(text)
    assert isinstance(phrase, str)
    assert unexplained(phrase, [phrase]) == [], "a result named like the question answers it"
