"""planexec: plans you can read, tools that fall back instead of failing, verified steps.

    from planexec import Orchestrator
    result = Orchestrator().run("Analyze data/examples/sales.csv and tell me the average revenue")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from planexec.config import Config
from planexec.errors import (
    ConfigError,
    InputError,
    LLMError,
    PlanexecError,
    PlanValidationError,
    RunAborted,
    ToolError,
    UsageError,
)
from planexec.models import (
    Evaluation,
    Plan,
    PlanStep,
    RunResult,
    StepResult,
    ToolAttempt,
    Usage,
    Verdict,
)

if TYPE_CHECKING:
    from planexec.orchestrator import Orchestrator

__version__ = "0.1.0"

__all__ = [
    "Config",
    "ConfigError",
    "Evaluation",
    "InputError",
    "LLMError",
    "Orchestrator",
    "Plan",
    "PlanStep",
    "PlanValidationError",
    "PlanexecError",
    "RunAborted",
    "RunResult",
    "StepResult",
    "ToolAttempt",
    "ToolError",
    "Usage",
    "UsageError",
    "Verdict",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # The orchestrator pulls in tools and numpy; importing planexec stays cheap.
    if name == "Orchestrator":
        from planexec.orchestrator import Orchestrator

        return Orchestrator
    raise AttributeError(f"module 'planexec' has no attribute {name!r}")
