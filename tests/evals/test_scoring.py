"""Scoring never raises, keeps scores in [0, 1], and one bad point never spoils the others."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planexec.evals import default_validators, evaluate_answer, metrics

DETERMINISTIC = [v.name for v in default_validators() if v.deterministic and v.name != "chain"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
types = st.sampled_from(DETERMINISTIC + ["chain", "nope"]).flatmap(
    lambda t: st.sampled_from([t, "not-" + t])
) | st.text(max_size=12) | json_values
param_values = st.dictionaries(
    st.sampled_from(["keywords", "pattern", "min", "max", "value", "unit", "mode", "schema", "path",
                     "capture", "flags", "threshold", "label", "tolerance", "equals", "steps", "extract"]),
    json_values,
    max_size=5,
)
points = st.fixed_dictionaries(
    {"type": types},
    optional={
        "params": param_values | json_values,
        "text": st.text(max_size=20) | json_values,
        "weight": st.floats(allow_nan=True) | st.integers(-3, 10) | json_values,
        "id": st.sampled_from(["a", "b", "c"]) | json_values,
        "depends_on": st.sampled_from(["a", "b", "c"]) | json_values,
        "on": st.sampled_from(["answer", "results", "results.x", "elsewhere"]) | json_values,
        "steps": st.lists(st.dictionaries(st.sampled_from(["type", "params"]), json_values), max_size=3),
        "metric": st.text(max_size=5),
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=st.text(max_size=200) | json_values, pts=st.lists(points | json_values, max_size=6) | json_values)
def test_evaluate_answer_never_raises_and_stays_in_range(answer: object, pts: object) -> None:
    score, details = evaluate_answer(answer, pts)
    assert 0.0 <= score <= 1.0
    for d in details:
        assert isinstance(d["ok"], bool) and isinstance(d["note"], str) and d["duration_ms"] >= 0
    assert all(0.0 <= v <= 1.0 for v in metrics(details).values())


@given(st.lists(st.tuples(st.booleans(), st.floats(0, 100)), min_size=1, max_size=10))
def test_score_is_passed_weight_over_total_weight(spec: list[tuple[bool, float]]) -> None:
    pts = [{"type": "contains" if ok else "not-contains", "params": {"value": "x"}, "weight": w} for ok, w in spec]
    score, _ = evaluate_answer("x", pts)
    total = sum(w for _, w in spec)
    expected = sum(w for ok, w in spec if ok) / total if total > 0 else 0.0
    assert abs(score - expected) < 1e-9


def test_one_bad_point_does_not_spoil_the_others() -> None:
    pts = [
        {"type": "keyword", "params": {"keywords": ["ok"]}},
        {"type": "regex", "params": {"pattern": "("}},
        "not a point",
        {"type": "length", "params": {"min": 1}, "weight": "heavy"},
        {"type": "contains", "params": {"value": "ok"}},
    ]
    score, details = evaluate_answer("ok", pts)
    assert [d["ok"] for d in details] == [True, False, False, False, True]
    assert score == 2 / 5
    assert "weight must be" in details[3]["note"]
    assert "must be an object" in details[2]["note"]


def test_dependencies_on_several_ids_and_named_metrics() -> None:
    pts = [
        {"id": "a", "type": "contains", "params": {"value": "x"}, "metric": "m1"},
        {"id": "b", "type": "contains", "params": {"value": "y"}, "metric": "m1", "weight": 3},
        {"type": "contains", "params": {"value": "x"}, "depends_on": ["a", "b"], "metric": "m2"},
        {"type": "contains", "params": {"value": "x"}, "depends_on": ["a"], "metric": "m2"},
    ]
    score, details = evaluate_answer("x", pts)
    assert [d["ok"] for d in details] == [True, False, False, True]
    assert details[2]["note"] == "Skipped; dependency 'b' did not pass."
    assert metrics(details) == {"m1": 0.25, "m2": 0.5}
    assert score == 2 / 6


def test_zero_total_weight_scores_zero() -> None:
    assert evaluate_answer("x", [{"type": "contains", "params": {"value": "x"}, "weight": 0}])[0] == 0.0
    assert evaluate_answer("x", [])[0] == 0.0


def test_nested_chains_are_bounded() -> None:
    point: dict = {"type": "contains", "params": {"value": "x"}}
    for _ in range(20):
        point = {"type": "chain", "steps": [point]}
    score, details = evaluate_answer("x", [point])
    assert score == 0.0 and "nest deeper" in details[0]["note"]
