"""`@tool`: make a tool from a plain function (schema from type hints, description from docstring)."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

from planexec.tools.base import ToolContext, ToolOutput

_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
}


def _schema_for(annotation: Any) -> dict[str, Any]:
    """JSON schema of one type hint; unknown hints accept anything."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        schemas = [_schema_for(a) for a in options]
        if type(None) in typing.get_args(annotation):
            schemas.append({"type": "null"})
        return {"anyOf": schemas} if len(schemas) > 1 else schemas[0]
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(annotation))}
    if origin in (list, tuple, typing.Sequence):
        args = typing.get_args(annotation)
        schema: dict[str, Any] = {"type": "array"}
        if args and args[-1] is not Ellipsis:
            schema["items"] = _schema_for(args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    return {}


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Resolved type hints; one that names something local to where the tool was defined is skipped."""
    try:
        return typing.get_type_hints(fn)
    except NameError:
        resolved: dict[str, Any] = {}
        for name, hint in getattr(fn, "__annotations__", {}).items():
            try:
                resolved[name] = eval(hint, fn.__globals__) if isinstance(hint, str) else hint  # noqa: S307
            except Exception:  # noqa: BLE001 - an unresolvable hint accepts anything
                continue
        return resolved


class FunctionTool:
    """A tool backed by a plain function; `ctx` is passed when the function asks for it."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        type: str = "general",
        description: str | None = None,
        requires_approval: bool = False,
        consumes: tuple[str, ...] = (),
        produces: tuple[str, ...] = (),
    ) -> None:
        self.fn = fn
        self.consumes = tuple(consumes)
        self.produces = tuple(produces)
        self.name = name or fn.__name__
        self.type = type
        doc = inspect.getdoc(fn) or ""
        self.description = description or doc.split("\n\n")[0].replace("\n", " ").strip()
        self.requires_approval = requires_approval
        self._wants_ctx = "ctx" in inspect.signature(fn).parameters
        self.input_schema = self._build_schema()

    def _build_schema(self) -> dict[str, Any]:
        hints = _hints(self.fn)
        props: dict[str, Any] = {}
        required: list[str] = []
        for pname, param in inspect.signature(self.fn).parameters.items():
            if pname == "ctx" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            spec = _schema_for(hints.get(pname, param.annotation))
            if param.default is inspect.Parameter.empty:
                required.append(pname)
            elif param.default is None or isinstance(param.default, (str, int, float, bool)):
                spec = {**spec, "default": param.default}
            elif isinstance(param.default, tuple):
                spec = {**spec, "default": list(param.default)}
            props[pname] = spec
        return {"type": "object", "properties": props, "required": required}

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        kwargs = dict(args)
        if self._wants_ctx:
            kwargs["ctx"] = ctx
        value = self.fn(**kwargs)
        if isinstance(value, ToolOutput):
            return value
        from planexec.serialize import summarize

        return ToolOutput(value=value, summary=summarize(value))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tool {self.name} ({self.type})>"


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    type: str = "general",
    description: str | None = None,
    requires_approval: bool = False,
    consumes: tuple[str, ...] = (),
    produces: tuple[str, ...] = (),
) -> Any:
    """Decorate a function to make it a tool: `@tool` or `@tool(type="statistics")`.

    `consumes`/`produces` name the run-state variables the tool reads and writes, which lets
    the heuristic planner chain tools backwards from what a request asks for.
    """

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            f,
            name=name,
            type=type,
            description=description,
            requires_approval=requires_approval,
            consumes=consumes,
            produces=produces,
        )

    return wrap(fn) if fn is not None else wrap
