"""The data a run's tools share (`ToolContext.state`): typed fields for what the core reads, a dict for the rest.

Tools add to it only through `ToolOutput.state`, merged by `merge_state`. The fields the core
and the reports read (`variables`, `code_blocks`, `stack_meta`, `rag_chunks`) are attributes;
any other key a tool publishes (`statistics`, ...) is kept in `extra`. The mapping interface
(`state["variables"]`, `state.get(...)`, `dict(state)`) reaches the same fields, so a
`ToolOutput.state` dict, a checkpoint's saved state and `ToolContext(state={...})` keep working.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable


class CodeBlock(NamedTuple):
    """One block of the run's standalone script (generated_code.py): a comment title and its code."""

    title: str
    code: str


@runtime_checkable
class InputMeta(Protocol):
    """What the domain's image loader says about the --images input (calcium: `StackMeta`)."""

    axes_note: str

    def describe(self) -> dict[str, Any]: ...


_FIELDS = ("variables", "code_blocks", "stack_meta", "rag_chunks")


@dataclass
class RunData(MutableMapping[str, Any]):
    """The run's shared data; attributes for the core's keys, `extra` for tools' own keys."""

    variables: dict[str, Any] = field(default_factory=dict)
    """Named values steps produced (arrays, `params`, ...), passed into the sandbox session."""
    code_blocks: list[CodeBlock] = field(default_factory=list)
    """The standalone script's blocks, in the order the steps ran (the inputs preamble first)."""
    stack_meta: InputMeta | Any = None
    """How the --images input was read (after a resume: its saved dict form); None without images."""
    rag_chunks: list[str] = field(default_factory=list)
    """Passages retrieved for the request, offered to the planner and the coder."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Every other key a tool published."""

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> RunData:
        """`data` itself when it is a RunData, else a RunData holding a copy of its keys."""
        if isinstance(data, RunData):
            return data
        made = cls()
        made.update(data or {})
        return made

    def merge(self, update: Mapping[str, Any]) -> None:
        """Add a tool's `ToolOutput.state`: variables join the run's, code blocks are appended
        (one the run already has, the inputs preamble, is not repeated), other keys replace."""
        for key, value in update.items():
            if key == "variables":
                self.variables.update(value or {})
            elif key == "code_blocks":
                self.code_blocks.extend(b for b in _blocks(value) if b not in self.code_blocks)
            else:
                self[key] = value

    # -- the mapping view ---------------------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        if key in _FIELDS:
            return getattr(self, key)
        return self.extra[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "variables":
            self.variables = dict(value or {})
        elif key == "code_blocks":
            self.code_blocks = _blocks(value)
        elif key == "rag_chunks":
            self.rag_chunks = [str(c) for c in value or ()]
        elif key == "stack_meta":
            self.stack_meta = value
        else:
            self.extra[key] = value

    def __delitem__(self, key: str) -> None:
        if key in _FIELDS:
            if key not in self:
                raise KeyError(key)
            self[key] = None
        else:
            del self.extra[key]

    def __contains__(self, key: object) -> bool:
        return key in self._present() or key in self.extra

    def __iter__(self) -> Iterator[str]:
        yield from self._present()
        yield from self.extra

    def __len__(self) -> int:
        return len(self._present()) + len(self.extra)

    def _present(self) -> tuple[str, ...]:
        """The fields holding something (an empty one reads as an absent key)."""
        return tuple(k for k in _FIELDS if getattr(self, k) not in (None, {}, []))


def _blocks(value: Iterable[Any] | None) -> list[CodeBlock]:
    """Code blocks from (title, code) pairs, [title, code] lists (a checkpoint) or {title, code} dicts."""
    return [CodeBlock(**b) if isinstance(b, Mapping) else CodeBlock(*b) for b in value or ()]


__all__ = ["CodeBlock", "InputMeta", "RunData"]
