"""InProcessSandbox: the sandbox seam's fake, running code with `exec` in this process.

NOT a security boundary: no policy check, no worker, no limits. It exists so tests of agents
that run code (python_code, stored capabilities) need no kernel features and start instantly.
It returns the same `ExecutionResult` as the real `Sandbox`, failures included, as data.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
import traceback
from typing import Any

from planexec.errors import InputError
from planexec.sandbox.result import ExecutionResult


class InProcessSession:
    """One namespace shared by runs, like `planexec.sandbox.Session`; `get()` returns variables."""

    def __init__(self, inputs: dict[str, Any] | None = None) -> None:
        import numpy as np

        self.inputs: dict[str, Any] = dict(inputs or {})
        self.ns: dict[str, Any] = {"np": np, "numpy": np, **self.inputs}
        self.closed = False
        self._lock = threading.Lock()

    def run(self, code: str, timeout: float | None = None) -> ExecutionResult:
        """Run `code` in the namespace; its `results` dict and figures come back (`timeout` is ignored)."""
        if self.closed:
            raise InputError("this sandbox session is closed; open a new one")
        with self._lock:
            self.ns["results"] = {}
            self.ns.pop("figure", None)
            self.ns.pop("figures", None)
            out = io.StringIO()
            started = time.perf_counter()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(code, "<sandbox>", "exec"), self.ns)  # noqa: S102 - a fake, see the docstring
            except Exception as exc:  # noqa: BLE001 - every failure becomes data
                return ExecutionResult.failure(type(exc).__name__, str(exc), line=_line(exc),
                                               duration=time.perf_counter() - started)
            results = self.ns.get("results")
            if not isinstance(results, dict):
                return ExecutionResult.failure("ResultError", f"`results` must be a dict, not {type(results).__name__}")
            return ExecutionResult(True, dict(results), self._figures(), out.getvalue(),
                                   duration=time.perf_counter() - started)

    def get(self, names: list[str] | tuple[str, ...], missing_ok: bool = False) -> dict[str, Any]:
        missing = [n for n in names if n not in self.ns]
        if missing and not missing_ok:
            raise InputError(f"no variable(s) {', '.join(missing)} in the session; define them in the code first")
        return {n: self.ns[n] for n in names if n in self.ns}

    def update(self, values: dict[str, Any]) -> None:
        """Add or replace input variables."""
        self.inputs.update(values)
        self.ns.update(values)

    def close(self) -> None:
        self.closed = True

    def _figures(self) -> list[bytes]:
        """PNGs of `figure`, `figures` and any pyplot figure the code left open (then closed)."""
        wanted = [self.ns.get("figure"), *(self.ns.get("figures") or ())]
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            wanted += [plt.figure(n) for n in plt.get_fignums()]
        pngs, seen = [], set()
        for fig in wanted:
            if hasattr(fig, "savefig") and id(fig) not in seen:
                seen.add(id(fig))
                buf = io.BytesIO()
                fig.savefig(buf, format="png", dpi=100)
                pngs.append(buf.getvalue())
        if plt is not None:
            plt.close("all")
        return pngs


class InProcessSandbox:
    """Opens in-process sessions; pass it as `Orchestrator(sandbox=InProcessSandbox())` in tests."""

    def session(self, inputs: dict[str, Any] | None = None) -> InProcessSession:
        return InProcessSession(inputs)

    def run(self, code: str, inputs: dict[str, Any] | None = None) -> ExecutionResult:
        """One run in a fresh namespace."""
        return self.session(inputs).run(code)


def _line(exc: BaseException) -> int | None:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<sandbox>"]
    return frames[-1].lineno if frames else None
