"""Tools: the protocol, the registry, the `@tool` decorator and planexec's built-in tools."""

from __future__ import annotations

if __name__ != "planexec.tools":
    raise ImportError("this folder is planexec.tools; import planexec.tools, not tools")

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from planexec.tools.base import Services, Tool, ToolContext, ToolOutput, validate_args
from planexec.tools.decorator import FunctionTool, tool
from planexec.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from planexec.models import Evaluation, StepResult
    from planexec.protocols import ImageLoader

__all__ = [
    "FunctionTool",
    "Services",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolRegistry",
    "builtin_evaluators",
    "default_image_loader",
    "default_registry",
    "tool",
    "validate_args",
]

# Modules whose `TOOLS` list makes up the built-in registry, in catalogue order.
BUILTIN_MODULES = (
    "table",
    "code",
    "rag",
    "capability_runner",
    "curves_data",
    "curves_stats",
    "curves_vis",
    "curves_report",
)

def default_registry() -> ToolRegistry:
    """A fresh registry holding every built-in tool (a new object each call)."""
    registry = ToolRegistry()
    for mod in BUILTIN_MODULES:
        for t in importlib.import_module(f"{__name__}.{mod}").TOOLS:
            registry.register(t)
    return registry


def default_image_loader() -> ImageLoader:
    """The built-in domain's loader of a run's --images input (calcium-imaging movies)."""
    from planexec.tools.calcium_inputs import CalciumImages

    return CalciumImages()


def builtin_evaluators() -> dict[str, Callable[[StepResult], Evaluation | None]]:
    """Per-tool step evaluators the built-in modules register (their `EVALUATORS`), by tool name."""
    found: dict[str, Callable[[StepResult], Evaluation | None]] = {}
    for mod in BUILTIN_MODULES:
        found.update(getattr(importlib.import_module(f"{__name__}.{mod}"), "EVALUATORS", {}))
    return found
