"""Sessions: runs that share one namespace in one worker process."""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

from planexec.errors import InputError
from planexec.sandbox import wire
from planexec.sandbox.handle import Worker, WorkerGone, file_backed
from planexec.sandbox.result import ExecutionResult

if TYPE_CHECKING:
    from planexec.sandbox.runner import Sandbox

__all__ = ["Session", "Worker", "WorkerGone", "file_backed"]


class Session:
    """Runs that share one namespace in one worker; `get()` returns named variables.

    If a run times out or the worker crashes, the next run starts a fresh worker from the
    session's inputs: variables made by earlier runs are then gone (the result says so).
    """

    def __init__(self, sandbox: Sandbox, inputs: dict[str, Any] | None = None) -> None:
        self.sandbox = sandbox
        self.inputs: dict[str, Any] = dict(inputs or {})
        self._worker: Worker | None = None
        self._lock = threading.Lock()
        self.closed = False
        self.restarts = 0

    def _ensure(self) -> Worker:
        if self.closed:
            raise InputError("this sandbox session is closed; open a new one")
        if self._worker is None:
            self._worker = Worker(self.sandbox, self.inputs, self.sandbox.session_cpu_seconds)
        return self._worker

    def run(self, code: str, timeout: float | None = None) -> ExecutionResult:
        """Run `code` in the session's namespace; failures come back as data."""
        violation = self.sandbox.check(code)
        if violation is not None:
            return violation
        if self.sandbox.refusal:
            return ExecutionResult.failure("SandboxRefused", self.sandbox.refusal)
        limit = float(timeout or self.sandbox.timeout)
        started = time.perf_counter()
        with self._lock:
            try:
                result = self._ensure().run(code, limit)
            except WorkerGone as gone:
                self._drop()
                note = "" if gone.error_type != "WorkerCrashed" and gone.error_type != "Timeout" else (
                    "; variables made by earlier runs of this session are gone")
                return ExecutionResult.failure(gone.error_type, f"{gone}{note}",
                                               duration=time.perf_counter() - started,
                                               layers=self.sandbox.all_layers)
            if self._worker is not None and self._worker.pid is None:  # killed for its output
                self._drop()
                result.error = f"{result.error}; the session's worker was stopped, so variables " \
                               "made by earlier runs are gone"
        result.duration = time.perf_counter() - started
        result.layers = ("policy",) * self.sandbox.check_policy + result.layers
        return result

    def get(self, names: list[str] | tuple[str, ...], missing_ok: bool = False) -> dict[str, Any]:
        """Named variables of the namespace (arrays via .npy, the rest via JSON)."""
        with self._lock:
            try:
                worker = self._ensure()
                reply = worker.ask({"op": "get", "names": list(names)}, self.sandbox.timeout)
                if not reply.get("ok"):
                    raise InputError(f"cannot return variables: {reply.get('error')}")
                budget = worker.budget(time.monotonic() + self.sandbox.timeout)
                values = worker.decode(reply.get("values") or {}, budget)
            except (OSError, ValueError) as exc:
                self._drop()
                raise InputError(f"cannot return variables: {exc}") from None
            except WorkerGone as gone:
                self._drop()
                raise InputError(f"cannot return variables: {gone}") from None
        missing = reply.get("missing") or []
        if missing and not missing_ok:
            raise InputError(f"no variable(s) {', '.join(missing)} in the session; "
                             f"define them in the code first")
        return values

    def update(self, values: dict[str, Any]) -> None:
        """Add or replace input variables (also kept for a restarted worker)."""
        if not values:
            return
        with self._lock:
            self.inputs.update(values)
            if self._worker is None:
                return
            import numpy as np

            worker = self._worker
            count = [0]

            def save(arr: Any) -> str:
                count[0] += 1
                name = f"set_{time.monotonic_ns()}_{count[0]}.npy"
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                             dir_fd=worker.dir_fd)
                with os.fdopen(fd, "wb") as fh:
                    np.save(fh, np.ascontiguousarray(arr), allow_pickle=False)
                return name

            try:
                encoded = {str(k): wire.encode(v, save, str(k)) for k, v in values.items()}
                worker.ask({"op": "set", "values": encoded}, self.sandbox.timeout)
            except wire.EncodeError as exc:
                raise InputError(f"sandbox input {exc}") from None
            except WorkerGone:
                self._drop()

    @property
    def alive(self) -> bool:
        return self._worker is not None

    @property
    def worker_pid(self) -> int | None:
        """Host pid of the session's worker process (None before the first run or after a failure)."""
        return self._worker.pid if self._worker is not None else None

    def scratch_usage(self) -> tuple[int, int] | None:
        """(bytes, files) the worker's scratch space holds now, as the kernel counts them."""
        if self._worker is None or self._worker.dir_fd < 0:
            return None
        st = os.fstatvfs(self._worker.dir_fd)
        return (st.f_blocks - st.f_bfree) * st.f_frsize, st.f_files - st.f_ffree

    def _drop(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
            self.restarts += 1

    def close(self) -> None:
        """Stop the worker and delete its scratch directory; safe to call twice."""
        with self._lock:
            self.closed = True
            if self._worker is not None:
                self._worker.close()
                self._worker = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
