"""Evaluations: validators, weighted and conditional scoring, agent task suites and reports.

    from planexec.evals import evaluate_answer
    score, details = evaluate_answer(answer, [
        {"text": "Mentions Transformer", "type": "keyword", "params": {"keywords": ["Transformer"]}, "weight": 3.0},
        {"text": "At least 50 words", "type": "length", "params": {"min": 50}, "weight": 0.5},
    ])
"""

from __future__ import annotations

if __name__ != "planexec.evals":
    raise ImportError("this folder is planexec.evals; import planexec.evals, not evals")

from planexec.evals.base import (
    BadParams,
    CheckUnavailable,
    EvalContext,
    Outcome,
    Validator,
    ValidatorSet,
)
from planexec.evals.judge import JudgeCache
from planexec.evals.registry import ValidatorRegistry, default_validators
from planexec.evals.reporting import (
    generate_csv_report,
    generate_json_report,
    generate_junit_report,
    generate_markdown_report,
    write_suite_reports,
)
from planexec.evals.runner import CaseResult, SuiteResult, orchestrator_runner, run_case, run_suite
from planexec.evals.scoring import evaluate_answer, metrics, run_evaluation_point
from planexec.evals.similarity_checks import levenshtein_distance, rouge_l
from planexec.evals.suite import Case, Suite, SuiteError, load_suite, suite_from_dict

__all__ = [
    "BadParams",
    "Case",
    "CaseResult",
    "CheckUnavailable",
    "EvalContext",
    "JudgeCache",
    "Outcome",
    "Suite",
    "SuiteError",
    "SuiteResult",
    "Validator",
    "ValidatorRegistry",
    "ValidatorSet",
    "default_validators",
    "evaluate_answer",
    "generate_csv_report",
    "generate_json_report",
    "generate_junit_report",
    "generate_markdown_report",
    "levenshtein_distance",
    "load_suite",
    "metrics",
    "orchestrator_runner",
    "rouge_l",
    "run_case",
    "run_evaluation_point",
    "run_suite",
    "suite_from_dict",
    "write_suite_reports",
]
