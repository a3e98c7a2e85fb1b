"""The tool registry: the only routing table, an explicit object (never a global)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator

from planexec.errors import UnknownNameError
from planexec.tools.base import Tool


class ToolRegistry:
    """Tools by name, with their types; unknown names raise an error listing what exists."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, tool: Tool, *, replace: bool = False) -> Tool:
        for attr in ("name", "type", "description", "input_schema", "run"):
            if not hasattr(tool, attr):
                raise TypeError(f"{tool!r} is not a tool: it has no {attr!r}")
        if tool.name in self._tools and not replace:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            close = difflib.get_close_matches(name, self._tools, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise UnknownNameError(
                f"unknown tool {name!r}.{hint} Known tools: {', '.join(sorted(self._tools))}"
            ) from None

    def by_type(self, type_: str) -> list[Tool]:
        return [t for t in self._tools.values() if t.type == type_]

    def names(self) -> set[str]:
        return set(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def catalogue(self) -> str:
        """One line per tool (name, type, description, arguments) for planner prompts."""
        lines = []
        for t in self._tools.values():
            props = (t.input_schema or {}).get("properties") or {}
            args = ", ".join(props) or "no arguments"
            lines.append(f"- {t.name} [{t.type}]: {t.description} (args: {args})")
        return "\n".join(lines)
