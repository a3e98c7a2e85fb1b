"""The tool seam: what a tool is, what it returns, and what it may use while it runs.

A tool has a name, a type (code, knowledge, data, statistics, analyzer, vis, calcium, ...),
a description, a JSON-schema for its input and `run(args, ctx) -> ToolOutput`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from planexec.errors import ToolInputError
from planexec.rundata import RunData
from planexec.services import Services

if TYPE_CHECKING:
    from planexec.config import Config
    from planexec.llm.base import LLM
    from planexec.models import PlanStep


@dataclass
class ToolOutput:
    """A tool's structured value (stored whole), a short summary, and files it wrote.

    `ok=False` lets a tool report failure without raising. `results` are key figures
    published to `RunResult.results`; `state` is merged into the run state for later tools
    (`merge_state`); tools never write the run state directly.
    """

    value: Any
    summary: str = ""
    artifacts: list[str] = field(default_factory=list)
    ok: bool = True
    error: str | None = None
    results: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)


def merge_state(state: RunData, update: dict[str, Any]) -> None:
    """Merge a tool's `ToolOutput.state` into the run's: the one way tools change the run state.

    `variables` are added to the run's (parallel steps each add their own) and `code_blocks`
    appended, a block the run already has (the inputs preamble) not repeated; other keys replace.
    """
    state.merge(update)


@dataclass
class ToolContext:
    """What a running tool may use: the request, its step, the LLM, inputs, run state and services."""

    request: str = ""
    step: PlanStep | None = None
    llm: LLM | None = None
    files: tuple[Path, ...] = ()
    images: Path | None = None
    output_dir: Path | None = None
    state: RunData = field(default_factory=RunData)
    """The run's shared data (a plain dict given here is copied into one)."""
    services: Services = field(default_factory=Services)
    config: Config | None = None

    def __post_init__(self) -> None:
        self.state = RunData.of(self.state)

    @property
    def figures_dir(self) -> Path:
        """Where figures go: `<output_dir>/figures`, created on demand."""
        base = self.output_dir or Path.cwd() / "outputs" / "scratch"
        path = base / "figures"
        path.mkdir(parents=True, exist_ok=True)
        return path


@runtime_checkable
class Tool(Protocol):
    """Anything with a name, a type, a description, an input schema and `run()`."""

    name: str
    type: str
    description: str
    input_schema: dict[str, Any]
    requires_approval: bool

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


def validate_args(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """Check `args` against the tool's schema; fill schema defaults; raise ToolInputError if wrong.

    A schema with `properties` accepts only those names (unless `additionalProperties` is true):
    an unknown name is rejected with the accepted ones listed.
    """
    import jsonschema

    schema = tool.input_schema or {"type": "object"}
    props = schema.get("properties")
    unknown = sorted(set(args) - set(props)) if isinstance(props, dict) and schema.get("additionalProperties") is not True else []
    if unknown:  # a misspelt argument must not be dropped silently and the default used
        raise ToolInputError(f"{tool.name}: unknown argument(s) {', '.join(unknown)}; "
                             f"accepted: {', '.join(sorted(props)) or 'none'}")
    filled = dict(args)
    for key, spec in (schema.get("properties") or {}).items():
        if key not in filled and isinstance(spec, dict) and "default" in spec:
            filled[key] = spec["default"]
    try:
        jsonschema.validate(filled, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "input"
        raise ToolInputError(f"{tool.name}: {where}: {exc.message}") from None
    return filled
