"""Tools: the protocol, the registry, the `@tool` decorator and planexec's built-in tools."""

from __future__ import annotations

if __name__ != "planexec.tools":
    raise ImportError("this folder is planexec.tools; import planexec.tools, not tools")

import importlib
import importlib.util

from planexec.tools.base import Services, Tool, ToolContext, ToolOutput, validate_args
from planexec.tools.decorator import FunctionTool, tool
from planexec.tools.registry import ToolRegistry

__all__ = [
    "FunctionTool",
    "Services",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolRegistry",
    "default_registry",
    "tool",
    "validate_args",
]

# Modules whose `TOOLS` list makes up the built-in registry, in catalogue order.
BUILTIN_MODULES = (
    "table",
    "code",
    "rag",
    "capability",
    "curves_data",
    "curves_stats",
    "curves_vis",
    "curves_report",
)

def default_registry() -> ToolRegistry:
    """A fresh registry holding every built-in tool (a new object each call)."""
    registry = ToolRegistry()
    for mod in BUILTIN_MODULES:
        name = f"{__name__}.{mod}"
        if importlib.util.find_spec(name) is None:
            continue
        for t in importlib.import_module(name).TOOLS:
            registry.register(t)
    return registry
