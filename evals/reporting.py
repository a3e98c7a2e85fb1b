"""Reports of evaluation results in CSV, Markdown, JSON and JUnit XML.

The `generate_*` functions take the seed's `score_details`: a list of `(score, details)`,
one per answer. `write_suite_reports` writes all four for a suite run.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.evals.scoring import Details
from planexec.serialize import to_jsonable

if TYPE_CHECKING:
    from planexec.evals.runner import SuiteResult

ScoreDetails = Sequence[tuple[float, Details]]
CSV_HEADERS = ["model_index", "final_score", "check_text", "status", "note", "duration_ms"]


def _status(result: dict[str, Any]) -> str:
    return "PASS" if result.get("ok") else "FAIL"


def generate_csv_report(score_details: ScoreDetails, output_path: Path | str) -> Path:
    """One row per check: model_index, final_score, check_text, status, note, duration_ms."""
    path = Path(output_path)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_HEADERS)
        writer.writeheader()
        for i, (score, details) in enumerate(score_details):
            for result in details:
                writer.writerow({
                    "model_index": i,
                    "final_score": score,
                    "check_text": result.get("point", ""),
                    "status": _status(result),
                    "note": result.get("note", ""),
                    "duration_ms": result.get("duration_ms", -1),
                })
    return path


def md_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(value).replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def markdown_checks(details: Details) -> list[str]:
    lines = ["| check | status | weight | note | ms |", "|---|---|---|---|---|"]
    for d in details:
        lines.append(
            f"| {md_cell(d.get('point', ''))} | {_status(d)} | {d.get('weight', 1.0):g} | "
            f"{md_cell(d.get('note', ''))} | {d.get('duration_ms', -1):.2f} |"
        )
    return lines


def generate_markdown_report(score_details: ScoreDetails, output_path: Path | str, title: str = "Evaluation report") -> Path:
    """A summary table of scores, then each answer's checks."""
    lines = [f"# {title}", "", "| answer | score | passed | failed |", "|---|---|---|---|"]
    for i, (score, details) in enumerate(score_details):
        passed = sum(1 for d in details if d.get("ok"))
        lines.append(f"| {i} | {score:.3f} | {passed} | {len(details) - passed} |")
    for i, (score, details) in enumerate(score_details):
        lines += ["", f"## Answer {i}: score {score:.3f}", "", *markdown_checks(details)]
    path = Path(output_path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def generate_json_report(score_details: ScoreDetails, output_path: Path | str) -> Path:
    """Every answer's score and full details as JSON."""
    data = [{"index": i, "score": score, "details": to_jsonable(details)}
            for i, (score, details) in enumerate(score_details)]
    path = Path(output_path)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def _testcase(parent: ET.Element, name: str, classname: str, details: Details, error: str | None = None) -> None:
    seconds = sum(d.get("duration_ms", 0.0) for d in details) / 1000
    case = ET.SubElement(parent, "testcase", name=name, classname=classname, time=f"{seconds:.3f}")
    if error is not None:
        ET.SubElement(case, "error", message=error[:200], type="RunError").text = error
        return
    failed = [d for d in details if not d.get("ok")]
    if failed:
        text = "\n".join(f"{d.get('point', '')}: {d.get('note', '')}" for d in failed)
        ET.SubElement(case, "failure", message=f"{len(failed)} check(s) failed", type="CheckFailed").text = text


def generate_junit_report(score_details: ScoreDetails, output_path: Path | str, suite_name: str = "evaluation") -> Path:
    """JUnit XML: one testcase per answer, failing when any of its checks failed."""
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=suite_name, tests=str(len(score_details)))
    failures = 0
    for i, (_score, details) in enumerate(score_details):
        _testcase(suite, f"answer-{i}", suite_name, details)
        failures += any(not d.get("ok") for d in details)
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    return _write_xml(root, output_path)


def _write_xml(root: ET.Element, output_path: Path | str) -> Path:
    ET.indent(root)
    path = Path(output_path)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


# --- suite reports ----------------------------------------------------------------------


def write_suite_reports(result: SuiteResult, report_dir: Path | str) -> dict[str, Path]:
    """Write `<suite>.csv`, `.md`, `.json` and `.junit.xml` into `report_dir`; returns the paths."""
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = result.suite.name
    return {
        "csv": _suite_csv(result, out / f"{stem}.csv"),
        "markdown": _suite_markdown(result, out / f"{stem}.md"),
        "json": _suite_json(result, out / f"{stem}.json"),
        "junit": _suite_junit(result, out / f"{stem}.junit.xml"),
    }


def _suite_csv(result: SuiteResult, path: Path) -> Path:
    headers = ["case_id", "case_outcome", *CSV_HEADERS]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=headers)
        writer.writeheader()
        for i, c in enumerate(result.cases):
            base = {"case_id": c.case.id, "case_outcome": c.outcome, "model_index": i, "final_score": c.score}
            if c.error is not None:
                writer.writerow({**base, "check_text": "(run)", "status": "ERROR", "note": c.error,
                                 "duration_ms": round(c.seconds * 1000, 3)})
            for d in c.details:
                writer.writerow({**base, "check_text": d.get("point", ""), "status": _status(d),
                                 "note": d.get("note", ""), "duration_ms": d.get("duration_ms", -1)})
    return path


def summary_rows(result: SuiteResult) -> list[tuple[str, str, str, str, str]]:
    """(case, outcome, score, threshold, seconds) per case, for tables."""
    return [(c.case.id, c.outcome, f"{c.score:.3f}", f"{c.case.threshold:g}", f"{c.seconds:.2f}")
            for c in result.cases]


def _suite_markdown(result: SuiteResult, path: Path) -> Path:
    verdict = "PASSED" if result.passed else "FAILED"
    lines = [
        f"# Suite {result.suite.name}: {verdict}",
        "",
        f"{result.count('PASS')} passed, {result.count('FAIL')} failed, {result.count('ERROR')} errors "
        f"of {len(result.cases)} cases; pass rate {result.pass_rate:.2%} (threshold {result.suite.threshold:.0%}); "
        f"mean score {result.mean_score:.3f}; {result.seconds:.1f} s; judge calls {result.judge_calls}.",
        "",
        "| case | outcome | score | threshold | seconds |",
        "|---|---|---|---|---|",
        *(f"| {md_cell(r[0])} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |" for r in summary_rows(result)),
    ]
    named = result.metrics()
    if named:
        lines += ["", "| metric | score |", "|---|---|", *(f"| {md_cell(k)} | {v:.3f} |" for k, v in named.items())]
    errors = [c for c in result.cases if c.error is not None]
    if errors:
        lines += ["", "## Errors (the run did not finish)", ""]
        lines += [f"- **{md_cell(c.case.id)}**: {md_cell(c.error)}" for c in errors]
    for c in result.cases:
        if c.error is None:
            lines += ["", f"## {md_cell(c.case.id)}: {c.outcome} ({c.score:.3f})", "",
                      f"Request: {md_cell(c.case.request)}", "", *markdown_checks(c.details)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _suite_json(result: SuiteResult, path: Path) -> Path:
    path.write_text(json.dumps(result.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def _suite_junit(result: SuiteResult, path: Path) -> Path:
    root = ET.Element("testsuites")
    suite = ET.SubElement(
        root, "testsuite", name=result.suite.name, tests=str(len(result.cases)),
        failures=str(result.count("FAIL")), errors=str(result.count("ERROR")), time=f"{result.seconds:.3f}",
    )
    for c in result.cases:
        _testcase(suite, c.case.id, result.suite.name, c.details, c.error)
        tc = suite[-1]
        tc.set("time", f"{c.seconds:.3f}")
        if c.error is None and not c.passed and tc.find("failure") is None:
            ET.SubElement(tc, "failure", message=f"score {c.score:.3f} below {c.case.threshold:g}",
                          type="BelowThreshold")
        elif c.error is None and c.passed and tc.find("failure") is not None:
            # the case passed its threshold although some checks failed: keep them as output
            failure = tc.find("failure")
            assert failure is not None
            tc.remove(failure)
            ET.SubElement(tc, "system-out").text = failure.text
    return _write_xml(root, path)
