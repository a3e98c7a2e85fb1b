"""The host's handle on one confined worker process: its folders, its socket, and the caps on
what it returns (read as hostile input)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import tempfile
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from planexec.errors import InputError
from planexec.sandbox import wire
from planexec.sandbox.parsing import read_npy_header
from planexec.sandbox.result import ExecutionResult

if TYPE_CHECKING:
    from planexec.sandbox.runner import Sandbox

MB = 1 << 20
COW_ROOM = 256 * MB
"""cgroup memory beyond memory_mb + quota: warm-heap pages the worker copies on write."""
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SHM = "/dev/shm"
SMALL_INPUTS = 64 * MB
"""Runs whose inputs copy at most this many bytes get their folder in memory (`memory_folder`)."""


@lru_cache(maxsize=1)
def memory_folder() -> str | None:
    """/dev/shm when it is a world-writable sticky tmpfs, else None.

    A run's folder is made and removed on the critical path of every run: on a tmpfs that
    takes microseconds, on a disk file system milliseconds (ext4 with `discard`: 4-16 ms a rmdir).
    """
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            tmpfs = any(line.split()[1:3] == [SHM, "tmpfs"] for line in fh)
        sticky = os.stat(SHM).st_mode & stat.S_ISVTX
    except (OSError, IndexError):
        return None
    return SHM if tmpfs and sticky and os.access(SHM, os.W_OK | os.X_OK) else None


def run_folder_root(inputs: dict[str, Any]) -> str:
    """Where a run's folder goes: in memory for small inputs (with room to spare there), else the temp dir.

    A container's /dev/shm may be 64 MB in all: a run must not fill it, so it needs four times
    its inputs free (outputs and figures come on top).
    """
    shm = memory_folder()
    size = _copied_bytes(inputs)
    if shm and size <= SMALL_INPUTS:
        try:
            free = os.statvfs(shm)
            if free.f_bavail * free.f_frsize >= 4 * size + SMALL_INPUTS:
                return shm
        except OSError:
            pass
    return tempfile.gettempdir()


def folder_prefix(pid: int | None = None) -> str:
    """The start of a run folder's name: it names the host process (and its pid namespace) that made it,
    so a later process can tell a folder whose maker died without removing it."""
    return f"planexec-sandbox-{_pid_namespace()}-{os.getpid() if pid is None else pid}-"


@lru_cache(maxsize=1)
def _pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


_swept: set[str] = set()
"""The roots this process has swept: a sweep runs before its first run folder in each."""


def sweep_orphans(root: str) -> list[str]:
    """Remove the run folders in `root` of host processes of this pid namespace and user that are gone
    (killed before they could clean up); returns what it removed."""
    ns, removed = _pid_namespace(), []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    for name in names:
        parts = name.split("-")
        if len(parts) < 5 or parts[:2] != ["planexec", "sandbox"] or parts[2] != str(ns) or not parts[3].isdigit():
            continue
        path = os.path.join(root, name)
        try:
            if os.lstat(path).st_uid != os.getuid() or _alive(int(parts[3])):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _copied_bytes(value: Any, depth: int = 0) -> int:
    """Bytes of the arrays in `value` that a run copies into its folder (an upper bound)."""
    if depth > wire.MAX_DEPTH or isinstance(value, wire.ReadOnlyFile):
        return 0
    if isinstance(value, dict):
        return sum(_copied_bytes(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_copied_bytes(v, depth + 1) for v in value)
    size = getattr(value, "nbytes", 0)
    return size if isinstance(size, int) else 0


def file_backed(arr: Any) -> str | None:
    """The `.npy` file behind `arr` when it is the whole file mapped read-only (`np.load(p, mmap_mode="r")`).

    Such an input reaches the worker as that path, which it maps read-only (Landlock grants it
    that one file, to read), so a movie larger than memory is neither copied nor loaded.
    """
    import numpy as np

    if not isinstance(arr, np.memmap) or arr.mode != "r" or not arr.filename:
        return None
    path = os.path.realpath(arr.filename)
    if not path.endswith(".npy") or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as fh:
            shape, fortran, dtype = read_npy_header(fh)
            offset = fh.tell()
    except (OSError, ValueError):
        return None
    whole = (tuple(shape) == arr.shape and dtype == arr.dtype and not fortran and arr.offset == offset
             and arr.flags.c_contiguous)
    return path if whole else None


def _phases(reported: Any, since_ns: int) -> list[tuple[str, float]]:
    """The worker's (phase, monotonic ns) list as (phase, ms after `since_ns`); [] if malformed."""
    try:
        return [(str(name)[:40], (int(ns) - since_ns) / 1e6) for name, ns in reported[:40]]
    except (TypeError, ValueError):
        return []


class WorkerGone(Exception):
    """The worker stopped answering: timed out, crashed or broke the protocol."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


class Worker:
    """One confined worker process seen from the host: its folders, socket and result caps.

    The host keeps `base` (inputs, read-only to the worker); the worker writes only in
    `base/work`, which in its own mount namespace is a size-limited tmpfs. The host reaches
    that tmpfs through a directory descriptor the worker sends before it runs any code.
    """

    def __init__(self, sandbox: Sandbox, inputs: dict[str, Any], cpu_seconds: int) -> None:
        self.sandbox = sandbox
        root = run_folder_root(inputs)
        if root not in _swept:
            _swept.add(root)
            sweep_orphans(root)
        self.base = tempfile.mkdtemp(prefix=folder_prefix(), dir=root)
        self.scratch = os.path.join(self.base, "work")
        os.mkdir(self.scratch, 0o700)
        self.dir_fd = -1
        self.sock: socket.socket | None = None
        self.pid: int | None = None
        self.layers: tuple[str, ...] = ()
        self.phases: list[tuple[str, float]] = []
        """(phase, ms after the spawn request when it ended) of the worker's start-up, as the
        worker reports it (negative: done ahead by the spare); for benchmarks, not trusted."""
        try:
            self._start(inputs, cpu_seconds)
        except BaseException:
            self.close()
            raise

    def _start(self, inputs: dict[str, Any], cpu_seconds: int) -> None:
        sb = self.sandbox
        read_files: list[str] = []
        mapped = self._write_inputs(inputs, read_files)
        quota = sb.quota_mb * MB
        limits = {"memory_bytes": sb.memory_mb * MB + mapped, "cpu_seconds": cpu_seconds,
                  "file_bytes": min(max(sb.file_mb * MB, 2 * mapped), quota), "open_files": 64,
                  "processes": 64, "quota_bytes": quota,
                  "cgroup_bytes": sb.memory_mb * MB + mapped + quota + COW_ROOM}
        request = {"base": self.base, "scratch": self.scratch, "layers": list(sb.layers),
                   "limits": limits, "inputs": "inputs.json" if inputs else None,
                   "output_chars": sb.output_chars, "read_files": read_files}
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        asked = time.monotonic_ns()
        self.sock = ours
        try:
            self.pid = sb.server.spawn(request, theirs.fileno())
        finally:
            theirs.close()
        fds: list[int] = []
        try:
            ready = self.ask(None, sb.timeout + 30, fds=fds)
        finally:
            for extra in fds[1:]:
                os.close(extra)
        if fds:
            self.dir_fd = fds[0]
        if not ready.get("ready"):
            raise WorkerGone(str(ready.get("error_type") or "SandboxError"),
                             str(ready.get("error") or "the worker did not start"))
        if self.dir_fd < 0 or not stat.S_ISDIR(os.fstat(self.dir_fd).st_mode):
            raise WorkerGone("SandboxError", "the worker did not hand over its scratch folder")
        self.layers = tuple(str(x) for x in ready.get("layers", ()))
        self.phases = _phases(ready.get("phases"), asked)

    def _write_inputs(self, inputs: dict[str, Any], read_files: list[str]) -> int:
        """Save inputs beside the scratch dir (arrays as .npy); returns the bytes of array data.

        A `ReadOnlyFile` is not copied: the worker opens the named .npy file read-only
        before it confines itself and memory-maps it.
        """
        import numpy as np

        if not inputs:
            return 0
        total = 0
        count = 0

        def save(arr: Any) -> str:
            nonlocal total, count
            source = file_backed(arr)  # a whole .npy mapped read-only travels as the file itself
            if source is not None:
                arr = wire.ReadOnlyFile(source)
            if isinstance(arr, wire.ReadOnlyFile):
                read_files.append(arr.path)
                total += arr.nbytes
                return arr.path
            count += 1
            name = f"in_{count}.npy"
            np.save(os.path.join(self.base, name), np.ascontiguousarray(arr), allow_pickle=False)
            total += int(arr.nbytes)
            return name

        try:
            encoded = {str(k): wire.encode(v, save, str(k)) for k, v in inputs.items()}
        except wire.EncodeError as exc:
            raise InputError(f"sandbox input {exc}") from None
        with open(os.path.join(self.base, "inputs.json"), "w", encoding="utf-8") as fh:
            json.dump(encoded, fh)
        return total

    def ask(self, message: dict[str, Any] | None, timeout: float,
            fds: list[int] | None = None) -> dict[str, Any]:
        """Send `message` (None: just listen) and wait for the reply, `timeout` s in all."""
        assert self.sock is not None
        deadline = time.monotonic() + timeout
        try:
            self.sock.settimeout(timeout)
            if message is not None:
                wire.send(self.sock, message)
            return wire.recv(self.sock, self.sandbox.max_message_mb * MB, deadline, fds)
        except TimeoutError:
            self.kill()
            raise WorkerGone("Timeout", f"the code ran longer than the timeout of {timeout:g} s; "
                                        "raise timeout or make the code faster") from None
        except wire.WireError as exc:
            self.kill()
            raise WorkerGone("OutputTooLarge", str(exc)) from None
        except (EOFError, OSError):
            raise WorkerGone("WorkerCrashed", self._death_notice()) from None

    def kill(self) -> None:
        """Kill the worker and wait until it and its threads are gone."""
        if self.pid is not None:
            self.sandbox.server.reap(self.pid)
            self.pid = None

    def _death_notice(self) -> str:
        info = self.sandbox.server.reap(self.pid) if self.pid else {}
        self.pid = None
        sig = info.get("signal")
        if sig:
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            hint = {"SIGSEGV": " (a crash in native code)", "SIGXCPU": " (CPU time limit)",
                    "SIGKILL": " (killed, often out of memory)"}.get(name, "")
            return f"the worker died with {name}{hint}; the next run starts a fresh worker"
        return f"the worker exited with code {info.get('code')}; the next run starts a fresh worker"

    def budget(self, deadline: float) -> wire.Budget:
        sb = self.sandbox
        return wire.Budget(sb.max_result_mb * MB, sb.max_arrays, sb.max_figure_mb * MB,
                           sb.max_figures, deadline)

    def read_array(self, name: str, budget: wire.Budget) -> Any:
        try:
            return wire.load_array_file(self.dir_fd, name, budget)
        finally:
            self._unlink(name)

    def read_png(self, name: str, budget: wire.Budget) -> bytes:
        if not isinstance(name, str) or "/" in name or not name.endswith(".png"):
            raise wire.WireError(f"refusing figure name {name!r}")
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                         dir_fd=self.dir_fd)
            with os.fdopen(fd, "rb") as fh:
                info = os.fstat(fh.fileno())
                if not stat.S_ISREG(info.st_mode):
                    raise wire.WireError(f"{name} is not a regular file")
                budget.take_figure(name, info.st_size)
                data = fh.read(info.st_size + 1)
        finally:
            self._unlink(name)
        if not data.startswith(PNG_MAGIC) or len(data) != info.st_size:
            raise wire.WireError(f"{name} is not a PNG of the size it claims")
        return data

    def _unlink(self, name: str) -> None:
        if "/" in str(name) or self.dir_fd < 0:
            return
        try:
            os.unlink(name, dir_fd=self.dir_fd)
        except OSError:
            pass

    def decode(self, values: Any, budget: wire.Budget) -> Any:
        """Results from the worker, arrays loaded within `budget`; hostile input throughout."""
        return wire.decode(values, lambda name: self.read_array(name, budget))

    def run(self, code: str, timeout: float) -> ExecutionResult:
        started = time.perf_counter()
        deadline = time.monotonic() + timeout
        reply = self.ask({"op": "run", "code": code}, timeout)
        budget = self.budget(deadline)
        try:
            names = reply.get("figures") or []
            if not isinstance(names, list) or len(names) > self.sandbox.max_figures:
                raise wire.WireError(f"more than {self.sandbox.max_figures} figures; make fewer")
            results = self.decode(reply.get("results") or {}, budget)
            figures = [self.read_png(n, budget) for n in names]
        except (OSError, ValueError) as exc:
            self.kill()
            return ExecutionResult.failure("OutputTooLarge", f"the worker's output was refused: {exc}",
                                           layers=self.layers)
        line = reply.get("line")
        return ExecutionResult(
            ok=bool(reply.get("ok")), results=results if isinstance(results, dict) else {},
            figures=figures, stdout=str(reply.get("stdout") or ""),
            stderr=str(reply.get("stderr") or ""), error=reply.get("error"),
            error_type=reply.get("error_type"), duration=time.perf_counter() - started,
            line=line if isinstance(line, int) else None, layers=self.layers,
        )

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.pid is not None:
            self.sandbox.server.release(self.pid)
            self.pid = None
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1
        shutil.rmtree(self.base, ignore_errors=True)
