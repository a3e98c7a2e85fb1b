"""The warm fork server: a process that has imported numpy, scipy, skimage and matplotlib once
and forks a fresh worker per run or session, so isolation does not pay the import cost.

The parent talks to it over a SOCK_SEQPACKET pair: `spawn` (with the worker's own socket
passed as a file descriptor) and `reap` (kill the worker's process group, return how it
ended). The server is started on first use, restarted if it dies, and stopped at exit.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from planexec.errors import PlanexecError
from planexec.sandbox import cgroup, confine, namespaces

PRELOAD = (
    "numpy", "scipy", "scipy.ndimage", "scipy.signal", "scipy.stats", "scipy.optimize",
    "scipy.interpolate", "scipy.spatial", "scipy.fft", "skimage", "skimage.filters",
    "skimage.measure", "skimage.morphology", "skimage.feature", "skimage.segmentation",
    "skimage.exposure", "skimage.transform", "skimage.registration", "skimage.util",
    "matplotlib", "matplotlib.pyplot",
)
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
                [sys.executable, "-I", "-m", "planexec.sandbox.forkserver", str(theirs.fileno())],
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
            _kill(pid)
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


# --- the server process -------------------------------------------------------------------


def _preload() -> None:
    import importlib

    from planexec.sandbox.policy import DEFAULT_ALLOWED_IMPORTS

    sys.dont_write_bytecode = True
    # the stdlib may live where an unprivileged worker cannot read (under /root): load it now
    for name in (*PRELOAD, *sorted(DEFAULT_ALLOWED_IMPORTS), "mmap"):
        importlib.import_module(name)
    import matplotlib.pyplot as plt
    import numpy as np

    from planexec.sandbox import seccomp, worker  # noqa: F401 - imported before any fork

    seccomp.load_library()
    if seccomp.available():
        seccomp.prepare()
    confine.remember_vm_size()
    confine.read_paths()
    fig, ax = plt.subplots()
    ax.plot(np.arange(3))
    ax.set_title("warm")
    with tempfile.TemporaryFile() as fh:
        fig.savefig(fh, format="png")
    plt.close("all")
    import gc

    gc.collect()
    gc.freeze()  # forked workers' collections then skip (and do not copy) the warm heap


class _Spare:
    """A worker forked ahead of time (into new namespaces or not), waiting for its request.

    Forking the warm interpreter is most of a run's start-up cost; the server makes the next
    worker right after handing one out, so that cost overlaps the run instead of preceding it.
    """

    def __init__(self, ctrl: socket.socket, isolated: bool, group: str) -> None:
        self.isolated, self.group = isolated, group
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = namespaces.clone(namespaces.NAMESPACE_FLAGS) if isolated else os.fork()
        if pid == 0:
            ours.close()
            _wait_as_spare(ctrl, theirs, isolated, group)
        theirs.close()
        self.pid, self.sock = pid, ours

    def hand_over(self, request: dict[str, Any], comm_fd: int) -> int:
        request["cgroup"] = self.group
        socket.send_fds(self.sock, [json.dumps(request).encode()], [comm_fd])
        self.sock.close()
        return self.pid

    def discard(self) -> None:
        self.sock.close()
        _kill(self.pid)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        cgroup.remove(self.group)


def _wait_as_spare(ctrl: socket.socket, sock: socket.socket, isolated: bool, group: str) -> None:
    """In a spare child: wait for a request and become its worker; exit if the server goes."""
    from planexec.sandbox import worker

    ctrl.detach()
    server = int(group[len(cgroup.PREFIX):].split("-")[0])  # the group is named after the server
    worker.get_ready(sock.fileno(), server, isolated, group if cgroup.find()[0] else None)
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 2)
    except OSError:
        os._exit(0)
    if not data or not fds:
        os._exit(0)
    sock.close()
    worker.main(fds[0], json.loads(data), server)


def _hand_over(spare: _Spare | None, ctrl: socket.socket, isolated: bool,
               request: dict[str, Any], comm_fd: int, group: str) -> int:
    """Give `request` to the waiting spare, or to a fresh one if there is none or it died."""
    if spare is not None:
        try:
            return spare.hand_over(request, comm_fd)
        except OSError:
            spare.discard()
    return _Spare(ctrl, isolated, group).hand_over(request, comm_fd)


def _serve(fd: int) -> None:
    ctrl = socket.socket(fileno=fd)
    _preload()
    cgroup.remove_stale(os.getpid())
    ctrl.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    children: dict[int, str] = {}
    dying: dict[int, str] = {}
    spares: dict[bool, _Spare] = {}  # one waiting worker per flavour (new namespaces or not)
    spawned = 0
    groups: set[str] = set()  # groups of reaped workers to remove (the kernel may hold one briefly)
    try:
        while True:
            for pid in list(dying):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    groups.add(dying.pop(pid))
            groups = {name for name in groups if not cgroup.remove(name)}
            ctrl.settimeout(0.05 if dying or groups else None)
            try:
                data, fds, _flags, _addr = socket.recv_fds(ctrl, 1 << 20, 4)
            except (InterruptedError, TimeoutError):
                continue
            if not data:
                break
            msg = json.loads(data)
            if msg["op"] == "spawn":
                spawned += 2
                request = msg["request"]
                isolated = "namespaces" in request["layers"]
                try:
                    pid = _hand_over(spares.pop(isolated, None), ctrl, isolated, request, fds[0],
                                     f"{cgroup.PREFIX}{os.getpid()}-{spawned}")
                except OSError as exc:
                    ctrl.send(json.dumps({"error": f"could not start a worker: {exc}"}).encode())
                    continue
                finally:
                    for extra in fds:
                        os.close(extra)
                children[pid] = request["cgroup"]
                ctrl.send(json.dumps({"pid": pid}).encode())
                try:
                    spares[isolated] = _Spare(ctrl, isolated, f"{cgroup.PREFIX}{os.getpid()}-{spawned + 1}")
                except OSError:
                    pass
            elif msg["op"] == "reap":
                ctrl.send(json.dumps(_reap(int(msg["pid"]), children, groups)).encode())
            elif msg["op"] == "release":
                pid = int(msg["pid"])
                if pid in children:
                    _kill(pid)
                    dying[pid] = children.pop(pid)
    finally:
        for spare in spares.values():
            spare.discard()
        for pid in list(children):
            _reap(pid, children, groups)
        for pid, name in dying.items():
            os.waitpid(pid, 0)
            groups.add(name)
        for _ in range(20):
            groups = {name for name in groups if not cgroup.remove(name)}
            if not groups:
                break
            time.sleep(0.05)


def _reap(pid: int, children: dict[int, str], groups: set[str]) -> dict[str, Any]:
    if pid not in children:
        return {"code": None, "signal": None}
    name = children.pop(pid)
    _kill(pid)
    _, status = os.waitpid(pid, 0)
    if not cgroup.remove(name):
        groups.add(name)
    if os.WIFSIGNALED(status):
        return {"code": None, "signal": os.WTERMSIG(status)}
    return {"code": os.WEXITSTATUS(status), "signal": None}


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
