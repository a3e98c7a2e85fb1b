"""The parent's handle on the warm fork server (`server.py`): a process that has imported numpy,
scipy, skimage and matplotlib once and forks a fresh worker per run or session, so isolation
does not pay the import cost.

The parent talks to it over a SOCK_SEQPACKET pair: `spawn` (with the worker's own socket
passed as a file descriptor) and `reap` (kill the worker's process group, return how it
ended). The server is started on first use, restarted if it dies, and stopped at exit.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from planexec.errors import PlanexecError
from planexec.sandbox import confine
from planexec.sandbox.server import kill_group

START_TIMEOUT = 120.0


class SandboxUnavailable(PlanexecError):
    """The fork server could not be started; the message says what it printed."""


class ForkServer:
    """Parent-side handle on the fork server process; thread-safe, started lazily."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._log: Any = None
        self._lock = threading.Lock()
        self.pid: int | None = None

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = tempfile.TemporaryFile()
        home = Path(os.environ.get("PLANEXEC_HOME", Path.home() / ".planexec"))
        mpl_dir = home / "cache" / "matplotlib"
        try:
            mpl_dir.mkdir(parents=True, exist_ok=True)
        except OSError:
            mpl_dir = Path(tempfile.gettempdir())
        env = {**confine.SAFE_ENV, "MPLCONFIGDIR": str(mpl_dir), "PATH": "/usr/bin:/bin",
               "HOME": str(mpl_dir)}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-m", "planexec.sandbox.server", str(theirs.fileno())],
                pass_fds=[theirs.fileno()], env=env, cwd=str(mpl_dir), stdin=subprocess.DEVNULL,
                stdout=self._log, stderr=self._log, start_new_session=True,
            )
        finally:
            theirs.close()
        self._sock = ours
        ours.settimeout(START_TIMEOUT)
        try:
            hello = json.loads(ours.recv(65536) or b"null")
        except (OSError, ValueError):
            hello = None
        ours.settimeout(None)
        if not isinstance(hello, dict) or not hello.get("ready"):
            self._log.seek(0)
            output = self._log.read()[-2000:].decode("utf-8", "replace")
            self._stop()
            raise SandboxUnavailable(f"the sandbox fork server did not start: {output.strip()}")
        self.pid = int(hello["pid"])

    def _call(self, message: dict[str, Any], fds: list[int] | None = None) -> dict[str, Any]:
        assert self._sock is not None
        data = json.dumps(message).encode()
        if fds:
            socket.send_fds(self._sock, [data], fds)
        else:
            self._sock.send(data)
        reply = self._sock.recv(65536)
        if not reply:
            raise EOFError("fork server closed")
        return json.loads(reply)

    def spawn(self, request: dict[str, Any], worker_fd: int) -> int:
        """Fork a worker for `request`, giving it `worker_fd`; returns its pid."""
        with self._lock:
            for attempt in (1, 2):
                if self._proc is None or self._proc.poll() is not None:
                    self._stop()
                    self._start()
                try:
                    reply = self._call({"op": "spawn", "request": request}, [worker_fd])
                except (OSError, EOFError, ValueError):
                    self._stop()
                    if attempt == 2:
                        raise SandboxUnavailable("the sandbox fork server keeps failing") from None
                    continue
                if "pid" not in reply:
                    raise SandboxUnavailable(str(reply.get("error") or "no worker started"))
                return int(reply["pid"])
        raise AssertionError("unreachable")

    def reap(self, pid: int) -> dict[str, Any]:
        """Kill the worker's process group and wait for it: {"code": int|None, "signal": int|None}."""
        with self._lock:
            if self._sock is None:
                return {"code": None, "signal": None}
            try:
                return self._call({"op": "reap", "pid": pid})
            except (OSError, EOFError, ValueError):
                self._stop()
                return {"code": None, "signal": None}

    def release(self, pid: int) -> None:
        """Kill the worker's process group now; the server reaps it in the background.

        The server has not reaped `pid` yet (it only does so when told), so the pid cannot
        have been reused; no reply is awaited, so the server may be busy forking meanwhile.
        """
        with self._lock:
            if self._sock is None:
                return
            kill_group(pid)
            try:
                self._sock.send(json.dumps({"op": "release", "pid": pid}).encode())
            except OSError:
                self._stop()

    def start(self) -> None:
        """Start the server if it is not running (spawn does this too, on first use)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _stop(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        self.pid = None

    def close(self) -> None:
        """Stop the server; it kills any worker still alive."""
        with self._lock:
            self._stop()

    def let_go(self) -> None:
        """Tell the server to stop without waiting for it: it kills its workers, removes their
        cgroups and exits on its own (for a process about to exit that need not watch that)."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
            self._proc = None
            self.pid = None


_server: ForkServer | None = None
_server_lock = threading.Lock()


def get_server() -> ForkServer:
    """The process-wide fork server (created on first use, stopped at interpreter exit)."""
    global _server
    with _server_lock:
        if _server is None:
            _server = ForkServer()
            atexit.register(shutdown)
        return _server


def prewarm() -> None:
    """Start the fork server in the background now, so its imports overlap the caller's work."""
    server = get_server()

    def start() -> None:
        try:
            server.start()
        except SandboxUnavailable:
            pass  # the first real spawn retries and reports the reason

    threading.Thread(target=start, name="planexec-forkserver-prewarm", daemon=True).start()


def shutdown() -> None:
    """Stop the process-wide fork server if it is running."""
    with _server_lock:
        if _server is not None:
            _server.close()


def let_go() -> None:
    """Stop the process-wide fork server without waiting for its clean-up (see `ForkServer.let_go`)."""
    with _server_lock:
        if _server is not None:
            _server.let_go()
