"""Static code policy: an AST lint run before any code executes.

It catches the obvious escapes early and names the line, so a model can fix its code.
It is not the security boundary (numpy and friends reach files from C, where no AST check
can see them); the boundary is the confined worker process (see `planexec.sandbox.confine`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass

from planexec.sandbox.parsing import PARSE_LOCK

DEFAULT_ALLOWED_IMPORTS: frozenset[str] = frozenset(
    {
        "numpy", "scipy", "skimage", "matplotlib", "math", "cmath", "statistics", "random",
        "itertools", "functools", "collections", "re", "json", "dataclasses", "typing",
        "string", "decimal", "fractions", "heapq", "bisect", "copy", "time", "datetime",
        "warnings", "textwrap", "enum", "numbers",
    }
)
"""Top-level modules generated analysis code may import."""

FORBIDDEN_MODULES: frozenset[str] = frozenset(
    {
        "os", "sys", "subprocess", "socket", "ctypes", "ctypeslib", "importlib", "pickle",
        "cPickle", "marshal", "shelve", "signal", "resource", "threading", "_thread",
        "multiprocessing", "concurrent", "asyncio", "builtins", "posix", "nt", "pty", "shutil",
        "pathlib", "io", "tempfile", "glob", "gc", "inspect", "code", "codeop", "urllib",
        "http", "ftplib", "smtplib", "select", "selectors", "mmap", "fcntl", "faulthandler",
        "runpy", "pkgutil", "zipimport", "sysconfig", "operator",
    }
)
"""Modules that are never importable, nor reachable as an attribute (`np.ctypeslib`, `random._os`)."""

FORBIDDEN_CALLS: frozenset[str] = frozenset(
    {
        "open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "input",
        "breakpoint", "help", "exit", "quit", "memoryview",
    }
)

SCIENCE_SUBMODULES: frozenset[str] = frozenset({"scipy.signal"})
"""Library submodules whose last name collides with a forbidden stdlib module; allowed by full path."""

ATTR_FUNCTIONS = frozenset({"getattr", "setattr", "delattr", "hasattr"})

FRAME_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
        "ag_code", "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame",
        "tb_next", "co_code", "func_globals", "mro",
    }
)

ALLOWED_DUNDER_METHODS: frozenset[str] = frozenset(
    {
        "__init__", "__repr__", "__str__", "__len__", "__iter__", "__next__", "__getitem__",
        "__setitem__", "__contains__", "__call__", "__enter__", "__exit__", "__eq__", "__ne__",
        "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__add__", "__sub__", "__mul__",
        "__truediv__", "__bool__", "__post_init__",
    }
)

MAX_CODE_CHARS = 1_000_000


@dataclass(frozen=True)
class Violation:
    """One policy breach, with the line it is on."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def check(code: str, allowed_imports: Collection[str] = DEFAULT_ALLOWED_IMPORTS) -> list[Violation]:
    """Lint `code`; an empty list means it may run. Never raises on any input."""
    if not isinstance(code, str):
        return [Violation(0, f"code must be a string, not {type(code).__name__}")]
    if len(code) > MAX_CODE_CHARS:
        return [Violation(0, f"code is {len(code)} characters; the limit is {MAX_CODE_CHARS}")]
    try:
        with PARSE_LOCK:  # parallel steps check code at once (planexec.sandbox.parsing)
            tree = ast.parse(code, filename="<sandbox>")
    except SyntaxError as exc:
        return [Violation(exc.lineno or 0, f"syntax error: {exc.msg}")]
    except (ValueError, RecursionError, MemoryError) as exc:
        return [Violation(0, f"code cannot be parsed: {type(exc).__name__}: {exc}")]
    checker = _Checker(frozenset(allowed_imports) - FORBIDDEN_MODULES)
    try:
        checker.visit(tree)
    except RecursionError:
        return [Violation(0, "code is nested too deeply to check")]
    return sorted(set(checker.violations), key=lambda v: (v.line, v.message))


def is_syntax_error(violations: list[Violation]) -> bool:
    return any(v.message.startswith("syntax error") for v in violations)


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


class _Checker(ast.NodeVisitor):
    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed
        self.violations: list[Violation] = []
        self.science_names: set[str] = set()

    def _add(self, node: ast.AST, message: str) -> None:
        self.violations.append(Violation(getattr(node, "lineno", 0), message))

    def _check_module(self, node: ast.AST, dotted: str) -> None:
        if any(dotted == m or dotted.startswith(m + ".") for m in SCIENCE_SUBMODULES):
            return
        parts = dotted.split(".")
        bad = [p for p in parts if p in FORBIDDEN_MODULES or p.startswith("_")]
        if bad:
            self._add(node, f"import of {dotted!r} is not allowed ({bad[0]})")
        elif parts[0] not in self.allowed:
            allowed = ", ".join(sorted(self.allowed))
            self._add(node, f"import of {dotted!r} is not allowed; allowed: {allowed}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self._add(node, "relative imports are not allowed")
            return
        self._check_module(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self._add(node, f"'from {node.module} import *' is not allowed; import names")
            elif f"{node.module}.{alias.name}" in SCIENCE_SUBMODULES:
                self.science_names.add(alias.asname or alias.name)
            elif alias.name in FORBIDDEN_MODULES or alias.name.startswith("_"):
                self._add(node, f"importing {alias.name!r} from {node.module} is not allowed")

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in FORBIDDEN_CALLS:
            self._add(node, f"{name}() is not allowed (inputs arrive as variables; return data in `results`)")
        elif name in FORBIDDEN_MODULES and name not in self.science_names:
            self._add(node, f"the name {name!r} is not allowed")
        elif _dunder(name) and name != "__name__":
            self._add(node, f"the name {name!r} is not allowed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("_"):
            self._add(node, f"access to the private attribute {attr!r} is not allowed")
        elif attr in FORBIDDEN_MODULES and not (
            isinstance(node.value, ast.Name) and f"{node.value.id}.{attr}" in SCIENCE_SUBMODULES
        ):
            self._add(node, f"access to the module attribute {attr!r} is not allowed")
        elif attr in FRAME_ATTRIBUTES:
            self._add(node, f"introspection through {attr!r} is not allowed")
        elif attr in ("format", "format_map") and isinstance(node.value, ast.Constant):
            text = node.value.value
            if isinstance(text, str) and ("._" in text or "[_" in text):
                self._add(node, "format strings may not reach private attributes")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ATTR_FUNCTIONS:
            name_arg = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name_arg, ast.Constant) and isinstance(name_arg.value, str)):
                self._add(node, f"{func.id}() needs a literal attribute name")
            elif name_arg.value.startswith("_") or name_arg.value in (
                FORBIDDEN_MODULES | FRAME_ATTRIBUTES
            ):
                self._add(node, f"{func.id}() on {name_arg.value!r} is not allowed")
        for kw in node.keywords:
            if kw.arg == "allow_pickle" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is False
            ):
                self._add(node, "allow_pickle is not allowed (pickles run code when loaded)")
        self.generic_visit(node)

    def _check_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if _dunder(node.name) and node.name not in ALLOWED_DUNDER_METHODS:
            self._add(node, f"defining {node.name} is not allowed")
        self.generic_visit(node)

    visit_FunctionDef = _check_def
    visit_AsyncFunctionDef = _check_def

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and any(
            _dunder(w) and w != "__name__" for w in _words(node.value)
        ):
            self._add(node, "strings naming dunder attributes are not allowed")


def _words(text: str) -> list[str]:
    out, cur = [], []
    for ch in text[:10_000]:
        if ch.isalnum() or ch == "_":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out
