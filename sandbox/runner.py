"""`Sandbox`: run untrusted analysis code in a confined, warm-forked worker process.

Security boundary, stated plainly: the code runs in a separate process that the kernel
confines, in layers: resource limits; no capabilities; its own uid/gid when the host is root;
new PID, IPC, network and mount namespaces; cgroup memory and pids limits; a size-limited
tmpfs as its only writable space; Landlock filesystem/TCP/signal rules; and a seccomp
allow-list. It is killed on its run's deadline. The host reads what it returns as hostile
input: one deadline per run, size and count caps checked before reading. The AST policy in
front is a lint that explains mistakes early, not a boundary. Layers this machine lacks are
named by `capabilities()`; without the required ones untrusted code is refused unless the
caller opts out (`allow_weaker=True` or PLANEXEC_SANDBOX_ALLOW_WEAKER=1).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from planexec.errors import ConfigError
from planexec.sandbox import confine, policy
from planexec.sandbox.forkserver import ForkServer, get_server
from planexec.sandbox.handle import Worker, WorkerGone
from planexec.sandbox.result import ExecutionResult
from planexec.sandbox.session import Session


@lru_cache(maxsize=1)
def _detected() -> confine.Capabilities:
    return confine.detect()


class Sandbox:
    """Runs code with `inputs` as variables plus np, scipy, skimage and plt (Agg).

    The code leaves `results` (a dict) and optionally `figure` / `figures`; see `run()`.
    """

    def __init__(
        self,
        timeout: float = 30,
        memory_mb: int = 1024,
        allowed_imports: Collection[str] = policy.DEFAULT_ALLOWED_IMPORTS,
        *,
        check_policy: bool = True,
        layers: Collection[str] | None = None,
        file_mb: int = 1024,
        output_chars: int = 20_000,
        server: ForkServer | None = None,
        quota_mb: int | None = None,
        allow_weaker: bool | None = None,
    ) -> None:
        """`memory_mb` is address space the code may use beyond the warm interpreter and its
        (memory-mapped) inputs. `layers` picks kernel layers (default: all this machine has;
        naming them is an explicit choice, so nothing is refused). `quota_mb` bounds all the
        worker's files together (default: `file_mb`). `allow_weaker` runs untrusted code even
        when a required layer is missing here.
        """
        if timeout <= 0 or memory_mb <= 0:
            raise ConfigError("sandbox timeout and memory_mb must be positive")
        caps = _detected()
        chosen = tuple(caps.layers if layers is None else layers)
        unknown = [name for name in chosen if name not in confine.LAYERS]
        if unknown:
            raise ConfigError(f"unknown sandbox layer(s) {unknown}; choose from {confine.LAYERS}")
        missing = [name for name in chosen if name not in caps.layers]
        if missing:
            raise ConfigError(f"sandbox layer(s) {missing} are not available on this machine: "
                              + "; ".join(caps.notes[m] for m in missing))
        self.timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.allowed_imports = frozenset(allowed_imports)
        self.check_policy = check_policy
        self.layers = tuple(name for name in confine.LAYERS if name in chosen)
        self.file_mb = int(file_mb)
        self.quota_mb = int(quota_mb or file_mb)
        self.output_chars = int(output_chars)
        self.max_message_mb = 64
        self.max_result_mb = max(64, self.memory_mb)
        """Array bytes one run may return in all (checked on file sizes before reading)."""
        self.max_arrays = 256
        self.max_figures = 32
        self.max_figure_mb = 32
        """PNG bytes one run may return in all."""
        if allow_weaker is None:
            allow_weaker = layers is not None or os.environ.get(
                "PLANEXEC_SANDBOX_ALLOW_WEAKER", "").strip().lower() in ("1", "true", "yes")
        self.refusal = None if allow_weaker else caps.refusal
        self.session_cpu_seconds = int(max(600, 40 * self.timeout))
        self._server = server

    @property
    def server(self) -> ForkServer:
        return self._server or get_server()

    @property
    def all_layers(self) -> tuple[str, ...]:
        return (("policy",) if self.check_policy else ()) + self.layers

    @staticmethod
    def capabilities() -> confine.Capabilities:
        """What this machine offers: Landlock ABI, seccomp, root, network namespaces (with notes)."""
        return _detected()

    def check(self, code: str) -> ExecutionResult | None:
        """The policy verdict as a failed result, or None when the code may run."""
        if not isinstance(code, str):
            return ExecutionResult.failure("PolicyViolation", "code must be a string")
        if not self.check_policy:
            return None
        violations = policy.check(code, self.allowed_imports)
        if not violations:
            return None
        kind = "SyntaxError" if policy.is_syntax_error(violations) else "PolicyViolation"
        text = "; ".join(str(v) for v in violations[:20])
        return ExecutionResult.failure(kind, f"{kind}: {text}", line=violations[0].line or None,
                                       layers=("policy",))

    def run(self, code: str, inputs: dict[str, Any] | None = None,
            timeout: float | None = None) -> ExecutionResult:
        """Run `code` once in a fresh confined worker; every failure comes back as data."""
        verdict = self.check(code)
        if verdict is not None:
            return verdict
        if self.refusal:
            return ExecutionResult.failure("SandboxRefused", self.refusal)
        limit = float(timeout or self.timeout)
        started = time.perf_counter()
        worker = None
        try:
            worker = Worker(self, dict(inputs or {}), cpu_seconds=math.ceil(limit) + 1)
            result = worker.run(code, limit)
        except WorkerGone as gone:
            return ExecutionResult.failure(gone.error_type, str(gone), layers=self.all_layers,
                                           duration=time.perf_counter() - started)
        finally:
            if worker is not None:
                worker.close()
        result.duration = time.perf_counter() - started
        result.layers = ("policy",) * self.check_policy + result.layers
        return result

    def session(self, inputs: dict[str, Any] | None = None) -> Session:
        """A session whose runs share one namespace in one worker (started on first use)."""
        return Session(self, inputs)
