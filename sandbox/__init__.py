"""planexec.sandbox: run generated analysis code in a confined, warm-forked worker process.

    from planexec.sandbox import Sandbox
    result = Sandbox(timeout=30).run("results = {'mean': float(images.mean())}", {"images": arr})

The boundary is the worker process the kernel confines; the AST policy is a lint in front.
`Sandbox.capabilities()` says which kernel layers this machine offers.
"""

if __name__ != "planexec.sandbox":
    raise ImportError("this folder is planexec.sandbox; import planexec.sandbox, not sandbox")

from planexec.sandbox.confine import LAYERS, Capabilities, Limits
from planexec.sandbox.forkserver import ForkServer, SandboxUnavailable, shutdown
from planexec.sandbox.policy import DEFAULT_ALLOWED_IMPORTS, Violation, check
from planexec.sandbox.result import ExecutionResult
from planexec.sandbox.runner import Sandbox
from planexec.sandbox.session import Session
from planexec.sandbox.wire import ReadOnlyFile

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "LAYERS",
    "ReadOnlyFile",
    "Capabilities",
    "ExecutionResult",
    "ForkServer",
    "Limits",
    "Sandbox",
    "SandboxUnavailable",
    "Session",
    "Violation",
    "check",
    "shutdown",
]
