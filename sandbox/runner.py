"""`Sandbox`: run untrusted analysis code in a confined, warm-forked worker process.

Security boundary, stated plainly: the code runs in a separate process that the kernel
confines (resource limits, no capabilities, Landlock filesystem/TCP/signal rules, a
seccomp filter against process creation, sockets and privilege changes) and that is killed
as a process group on timeout. The AST policy in front of it is a lint that explains
mistakes early, not a boundary. Layers this machine lacks are named by `capabilities()`;
without Landlock and seccomp the worker is only as strong as its resource limits.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from planexec.errors import ConfigError
from planexec.sandbox import confine, policy
from planexec.sandbox.forkserver import ForkServer, get_server
from planexec.sandbox.result import ExecutionResult
from planexec.sandbox.session import Session, Worker, WorkerGone


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
    ) -> None:
        """`memory_mb` is address space the code may use beyond the warm interpreter and its
        (memory-mapped) inputs. `layers` picks kernel layers (default: all this machine has).
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
        self.output_chars = int(output_chars)
        self.max_message_mb = 64
        self.max_result_mb = max(2048, self.memory_mb)
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
