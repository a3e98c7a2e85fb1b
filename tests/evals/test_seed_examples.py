"""Seed 003's five enhancements and the chaining example, exactly as the seed shows them."""

from __future__ import annotations

import csv
from pathlib import Path

from planexec.evals import (
    evaluate_answer,
    generate_csv_report,
    generate_markdown_report,
    run_evaluation_point,
)

WEIGHTED = [
    {"text": "Crucial: Mentions Transformer.", "type": "keyword", "params": {"keywords": ["Transformer"]}, "weight": 3.0},
    {"text": "Minor: Contains at least 50 words.", "type": "length", "params": {"min": 50}, "weight": 0.5},
]
CONDITIONAL = [
    {"id": "has_json", "text": "Answer contains a JSON block.", "type": "regex", "params": {"pattern": "```json"}},
    {"id": "is_valid_json", "text": "The JSON block is valid.", "type": "json_schema", "params": {"schema": {}},
     "depends_on": "has_json"},
]
NEGATION = [{"text": "Avoids using weakeners.", "type": "negation", "params": {"keywords": ["maybe", "perhaps", "possibly"]}}]
CHAIN = [{
    "text": "Extracts and validates the user profile from the JSON.",
    "type": "chain",
    "steps": [
        {"type": "regex", "params": {"pattern": "```json\n(.*)\n```", "capture": 1}, "note": "Extract JSON block from markdown."},
        {"type": "json_schema", "params": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}},
         "note": "Validate the extracted JSON."},
    ],
}]


def test_performance_logging_detail_shape() -> None:
    score, details = evaluate_answer("The Transformer model.", WEIGHTED[:1])
    d = details[0]
    assert d["point"] == "Mentions the Transformer model." or d["point"] == "Crucial: Mentions Transformer."
    assert d["ok"] is True and d["note"] == "Found keyword 'Transformer'."
    assert isinstance(d["duration_ms"], float) and d["duration_ms"] >= 0
    result = run_evaluation_point(WEIGHTED[0], "nothing")
    assert set(result) >= {"ok", "note", "duration_ms"} and result["ok"] is False


def test_weighted_scoring_3_and_half() -> None:
    short = "The Transformer model."
    assert evaluate_answer(short, WEIGHTED)[0] == 3.0 / 3.5
    long = "Transformer " + "word " * 60
    assert evaluate_answer(long, WEIGHTED)[0] == 1.0
    assert evaluate_answer("word " * 60, WEIGHTED)[0] == 0.5 / 3.5
    assert evaluate_answer("nothing", WEIGHTED)[0] == 0.0


def test_conditional_evaluation() -> None:
    with_json = 'Here:\n```json\n{"a": 1}\n```'
    score, details = evaluate_answer(with_json, CONDITIONAL)
    assert score == 1.0 and [d["ok"] for d in details] == [True, True]

    broken = 'Here:\n```json\n{"a": 1,,}\n```'
    score, details = evaluate_answer(broken, CONDITIONAL)
    assert score == 0.5 and details[1]["ok"] is False and "skipped" not in details[1]

    score, details = evaluate_answer("no json at all", CONDITIONAL)
    assert score == 0.0
    assert details[1] == {**details[1], "ok": False, "note": "Skipped; dependency 'has_json' did not pass.", "skipped": True}


def test_dependency_on_an_unknown_id_is_skipped() -> None:
    score, details = evaluate_answer("x", [{"type": "length", "params": {"min": 1}, "depends_on": "nope"}])
    assert score == 0.0 and details[0]["note"] == "Skipped; dependency 'nope' did not pass."


def test_negation_notes_list_the_found_words() -> None:
    _, details = evaluate_answer("Maybe it works, perhaps not.", NEGATION)
    assert details[0]["ok"] is False
    assert details[0]["note"] == "Prohibited keywords found: maybe, perhaps"
    _, details = evaluate_answer("It works.", NEGATION)
    assert details[0]["ok"] is True and details[0]["note"] == "No prohibited keywords found."


def test_chain_extracts_then_validates() -> None:
    good = 'Profile:\n```json\n{"name": "Ada", "age": 36}\n```\nDone.'
    score, details = evaluate_answer(good, CHAIN)
    assert score == 1.0
    assert details[0]["output"] == {"name": "Ada", "age": 36}
    assert "Extract JSON block" in details[0]["note"] and "Validate the extracted JSON" in details[0]["note"]

    wrong_type = 'Profile:\n```json\n{"name": 42}\n```'
    score, details = evaluate_answer(wrong_type, CHAIN)
    assert score == 0.0 and "step 2" in details[0]["note"] and "name" in details[0]["note"]

    no_block = "Profile: none"
    score, details = evaluate_answer(no_block, CHAIN)
    assert score == 0.0 and "Chain stopped" in details[0]["note"] and "step 1" in details[0]["note"]


def test_chain_passes_input_on_when_a_step_has_no_output() -> None:
    point = {"type": "chain", "steps": [
        {"type": "length", "params": {"min": 1}},
        {"type": "regex", "params": {"pattern": r"(\d+) cells", "capture": 1}},
        {"type": "numeric", "params": {"value": 12}},
    ]}
    assert run_evaluation_point(point, "found 12 cells")["ok"]
    assert not run_evaluation_point(point, "found 13 cells")["ok"]


def test_csv_report_has_the_seed_columns(tmp_path: Path) -> None:
    runs = [evaluate_answer("The Transformer model.", WEIGHTED), evaluate_answer("nothing", WEIGHTED)]
    path = generate_csv_report(runs, tmp_path / "evaluation_report.csv")
    rows = list(csv.DictReader(path.read_text().splitlines()))
    assert list(rows[0]) == ["model_index", "final_score", "check_text", "status", "note", "duration_ms"]
    assert [(r["model_index"], r["status"]) for r in rows] == [("0", "PASS"), ("0", "FAIL"), ("1", "FAIL"), ("1", "FAIL")]
    assert float(rows[0]["final_score"]) == 3.0 / 3.5
    md = generate_markdown_report(runs, tmp_path / "r.md").read_text()
    assert "| 0 | 0.857 | 1 | 1 |" in md and "Crucial: Mentions Transformer." in md
