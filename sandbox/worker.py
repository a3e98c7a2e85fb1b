"""The worker: what runs in a process forked from the fork server, after it confines itself.

It owns one namespace, answers `run`, `get` and `set` requests over its socket, and writes
arrays and figures into its scratch directory. It never returns: it ends with `os._exit`.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import signal
import socket
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, NoReturn

from planexec.sandbox import cgroup, confine, namespaces, wire

NATIVE_LOG = "native.log"
BIG_INPUT_BYTES = 8 << 20


class CappedText(io.TextIOBase):
    """A text stream that keeps the first `cap` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.cap - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self) -> str:
        body = "".join(self.parts)
        if self.dropped:
            body += f"\n... [output truncated: {self.dropped} more characters]"
        return body


@dataclass(frozen=True)
class Preparation:
    """What a spare worker sets up before its request arrives: it depends only on the request's
    layers and quota (and where the quota tmpfs goes), so the server keeps a spare per value."""

    layers: tuple[str, ...]
    quota_bytes: int
    scratch: str
    """Where the quota tmpfs is mounted ("" without the quota layer)."""

    @classmethod
    def of(cls, request: dict[str, Any]) -> Preparation:
        quota = "quota" in request["layers"]
        return cls(tuple(request["layers"]), int(request["limits"]["quota_bytes"]) if quota else 0,
                   str(request["scratch"]) if quota else "")

    @property
    def isolated(self) -> bool:
        """The worker starts in new namespaces (the server clones it so)."""
        return "namespaces" in self.layers


@dataclass
class _Ready:
    """What `get_ready` did, or the error that stopped it (raised when the request comes)."""

    prep: Preparation
    uid: int | None = None
    done: list[str] = field(default_factory=list)
    error: Exception | None = None


_ready: _Ready | None = None


def main(comm_fd: int, request: dict[str, Any]) -> NoReturn:
    """Entry point in a spare worker given its request: confine, load inputs, serve requests."""
    status = 70
    try:
        status = _serve(comm_fd, request)
    finally:
        os._exit(status)


def get_ready(keep_fd: int, server_pid: int, prep: Preparation, group: str | None) -> None:
    """What a spare worker does before it has a request: its own session, no inherited
    descriptors, (as root) its own cgroup, its namespaces' mounts, and a warm-up run."""
    global _ready
    _isolate(keep_fd, server_pid, prep.isolated)
    if group:
        try:
            cgroup.join(group)
        except OSError:
            pass  # enter() tries again, and fails closed, if the request asks for the layer
    _ready = _set_up(prep)
    warm_up()


def _isolate(comm_fd: int, server_pid: int, in_pidns: bool) -> None:
    os.setsid()
    confine.set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != (0 if in_pidns else server_pid):
        os._exit(71)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead
    keep = sorted({0, 1, 2, comm_fd})
    for low, high in zip(keep, [*keep[1:], 1 << 20], strict=True):
        os.closerange(low + 1, high)


def _set_up(prep: Preparation) -> _Ready:
    """The request-independent root-only setup: identity to become, namespaces' mounts, quota."""
    ready = _Ready(prep)
    try:
        uid = confine.worker_identity(namespaces.host_pid()) if "identity" in prep.layers else None
        ready.uid = uid
        if prep.isolated:
            namespaces.make_mounts_private()
            if uid is not None:
                namespaces.expose(confine.read_paths())
            if prep.quota_bytes:
                owner = uid if uid is not None else os.getuid()
                namespaces.mount_scratch(prep.scratch, prep.quota_bytes, owner, owner)
            namespaces.mount_private_proc()
            ready.done.append("namespaces")
            if prep.quota_bytes:
                ready.done.append(f"quota({prep.quota_bytes >> 20} MB)")
    except Exception as exc:  # noqa: BLE001 - reported, failing closed, when the request comes
        ready.error = exc
    return ready


def _prepare(req: dict[str, Any], done: list[str]) -> tuple[int | None, list[int]]:
    """Root-only setup before confinement: what `get_ready` did not, scratch ownership, cgroup.

    Returns the uid to drop to (None: keep this one) and read-only file descriptors of the
    files the host named for memory-mapping; appends the layers set up to `done`.
    """
    ready = _ready
    if ready is None or ready.prep != Preparation.of(req):  # the server matches them: never
        raise RuntimeError("this worker was prepared for another kind of request")
    if ready.error is not None:
        raise ready.error
    layers = set(req["layers"])
    base, scratch, uid = req["base"], req["scratch"], ready.uid
    done.extend(ready.done)
    if uid is not None:
        if "quota" not in layers:
            os.chown(scratch, uid, uid)
            os.chmod(scratch, 0o700)
        os.chown(base, 0, uid)
        os.chmod(base, 0o750)
        for name in os.listdir(base):
            path = os.path.join(base, name)
            if os.path.isfile(path) and not os.path.islink(path):
                os.chown(path, 0, uid)
                os.chmod(path, 0o640)
    if "cgroup" in layers and req.get("cgroup"):
        lim = req["limits"]
        cgroup.enter(str(req["cgroup"]), int(lim["cgroup_bytes"]), int(lim["processes"]))
        done.append("cgroup")
    mapped = [os.open(path, os.O_RDONLY | os.O_CLOEXEC) for path in req.get("read_files") or ()]
    return uid, mapped


WARM_UP_CODE = "results = {'mean': float(np.arange(100).mean()), 'text': str([1.5])}"


def warm_up() -> None:
    """Run a trivial snippet through the whole run path (exec, numpy, encoding, figures, JSON).

    A forked worker copies each warm-heap page it first writes; doing that once here, in the
    fork server and in a spare before its request, keeps those copies off a run's critical path.
    """
    state = _State({"base": "", "output_chars": 100}, "", {})
    json.dumps(state.run(WARM_UP_CODE))


def _redirect_output(scratch: str, uid: int | None) -> None:
    null = os.open("/dev/null", os.O_RDONLY)
    log = os.open(os.path.join(scratch, NATIVE_LOG), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if uid is not None:
        os.fchown(log, uid, uid)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir(scratch)
    confine.scrub_environment(scratch)
    tempfile.tempdir = scratch


def _serve(comm_fd: int, req: dict[str, Any]) -> int:
    scratch = req["scratch"]
    sock = socket.socket(fileno=comm_fd)
    try:
        prepared: list[str] = []
        uid, mapped = _prepare(req, prepared)
        _redirect_output(scratch, uid)
        dir_fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        applied = confine.apply(tuple(req["layers"]), [req["base"]], scratch,
                                confine.Limits(**req["limits"]), uid)
        applied[1:1] = prepared
    except Exception as exc:  # noqa: BLE001 - fail closed and say why
        wire.send(sock, {"ready": False, "error_type": "SandboxError",
                         "error": f"could not confine the worker: {type(exc).__name__}: {exc}"})
        return 72
    state = _State(req, scratch, dict(zip(req.get("read_files") or (), mapped, strict=True)))
    try:
        state.ns.update(state.load_inputs(req.get("inputs")))
    except MemoryError:
        wire.send(sock, {"ready": False, "error_type": "MemoryError",
                         "error": "the inputs do not fit in memory_mb; raise memory_mb"})
        return 73
    except Exception as exc:  # noqa: BLE001 - say why rather than exit silently
        wire.send(sock, {"ready": False, "error_type": "SandboxError",
                         "error": f"could not load the inputs: {type(exc).__name__}: {exc}"})
        return 74
    wire.send(sock, {"ready": True, "layers": applied}, fds=[dir_fd])
    os.close(dir_fd)
    while True:
        try:
            msg = wire.recv(sock, 1 << 30)
        except (EOFError, OSError):
            return 0
        op = msg.get("op")
        if op == "run":
            reply = state.run(str(msg["code"]))
        elif op == "get":
            reply = state.get(list(msg["names"]))
        elif op == "set":
            reply = state.set(msg["values"])
        else:
            return 0
        wire.send(sock, reply)


class _State:
    def __init__(self, req: dict[str, Any], scratch: str, mapped: dict[str, int]) -> None:
        import matplotlib.pyplot as plt
        import numpy as np
        import scipy
        import skimage

        self.scratch = scratch
        self.base = str(req["base"])
        self.mapped = mapped
        self.output_cap = int(req.get("output_chars", 20_000))
        self.counter = 0
        self.ns: dict[str, Any] = {
            "__builtins__": builtins, "__name__": "__sandbox__", "np": np, "numpy": np,
            "scipy": scipy, "skimage": skimage, "plt": plt, "matplotlib": sys.modules["matplotlib"],
            "results": {},
        }

    def _save_array(self, arr: Any) -> str:
        import numpy as np

        self.counter += 1
        name = f"out_{self.counter}.npy"
        np.save(os.path.join(self.scratch, name), np.ascontiguousarray(arr), allow_pickle=False)
        return name

    def _load_array(self, name: str) -> Any:
        import numpy as np

        if name in self.mapped:
            return wire.map_array_fd(self.mapped[name])
        if not wire.SAFE_NAME.match(name):
            raise wire.WireError(f"bad array name {name!r}")
        path = os.path.join(self.scratch if name.startswith("set_") else self.base, name)
        mmap = "c" if os.path.getsize(path) > BIG_INPUT_BYTES else None
        return np.load(path, mmap_mode=mmap, allow_pickle=False)

    def load_inputs(self, name: str | None) -> dict[str, Any]:
        if not name:
            return {}
        with open(os.path.join(self.base, name), encoding="utf-8") as fh:
            return wire.decode(json.load(fh), self._load_array)

    def set(self, values: dict[str, Any]) -> dict[str, Any]:
        self.ns.update(wire.decode(values, self._load_array))
        return {"ok": True}

    def get(self, names: list[str]) -> dict[str, Any]:
        missing = [n for n in names if n not in self.ns or n.startswith("__")]
        found = {n: self.ns[n] for n in names if n not in missing}
        try:
            values = {n: wire.encode(v, self._save_array, n) for n, v in found.items()}
        except wire.EncodeError as exc:
            return {"ok": False, "error_type": "SerializationError", "error": str(exc)}
        return {"ok": True, "values": values, "missing": missing}

    def run(self, code: str) -> dict[str, Any]:
        import matplotlib.pyplot as plt

        out, err = CappedText(self.output_cap), CappedText(self.output_cap)
        ns = self.ns
        ns["results"] = {}
        ns.pop("figure", None)
        ns.pop("figures", None)
        reply: dict[str, Any] = {"ok": True, "error": None, "error_type": None, "line": None}
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        started = time.perf_counter()
        try:
            exec(compile(code, "<sandbox>", "exec"), ns)  # noqa: S102 - the point of a sandbox
        except BaseException as exc:  # noqa: BLE001 - every failure becomes data
            reply.update(_describe_error(exc))
        finally:
            sys.stdout, sys.stderr = saved
        reply["seconds"] = time.perf_counter() - started
        results = ns.get("results")
        if reply["ok"] and not isinstance(results, dict):
            reply.update(ok=False, error_type="ResultError",
                         error=f"`results` must be a dict, not {type(results).__name__}")
        try:
            reply["results"] = wire.encode(results if isinstance(results, dict) else {},
                                           self._save_array, "results")
        except (wire.EncodeError, RecursionError) as exc:
            reply.update(ok=False, error_type="SerializationError", error=str(exc), results={})
        try:
            reply["figures"] = self._save_figures(plt)
        except Exception as exc:  # noqa: BLE001
            err.write(f"\n[figures could not be saved: {type(exc).__name__}: {exc}]")
            reply["figures"] = []
        reply["stdout"] = out.text()
        reply["stderr"] = err.text() + self._native_output()
        return reply

    def _save_figures(self, plt: Any) -> list[str]:
        from matplotlib.figure import Figure

        wanted = [self.ns.get("figure")]
        extra = self.ns.get("figures")
        if isinstance(extra, (list, tuple)):
            wanted.extend(extra)
        wanted.extend(plt.figure(n) for n in plt.get_fignums())
        seen, names = set(), []
        for fig in wanted:
            if isinstance(fig, Figure) and id(fig) not in seen:
                seen.add(id(fig))
                self.counter += 1
                name = f"fig_{self.counter}.png"
                fig.savefig(os.path.join(self.scratch, name), format="png", dpi=100)
                names.append(name)
        plt.close("all")
        return names

    def _native_output(self) -> str:
        if not self.scratch:
            return ""
        path = os.path.join(self.scratch, NATIVE_LOG)
        try:
            with open(path, "r+b") as fh:
                data = fh.read(self.output_cap + 1)
                size = os.fstat(fh.fileno()).st_size
                fh.truncate(0)
            os.lseek(1, 0, os.SEEK_SET)
        except OSError:
            return ""
        if not data:
            return ""
        text = data[: self.output_cap].decode("utf-8", "replace")
        if size > self.output_cap:
            text += f"\n... [native output truncated: {size - self.output_cap} more bytes]"
        return text


def _describe_error(exc: BaseException) -> dict[str, Any]:
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == "<sandbox>":
            line = frame.lineno
    name = type(exc).__name__
    text = str(exc) or name
    if isinstance(exc, MemoryError):
        text = "the code ran out of memory (the sandbox's memory_mb); raise memory_mb or work in chunks"
    elif isinstance(exc, RecursionError):
        text = f"{text}; rewrite the recursion as a loop"
    elif isinstance(exc, SystemExit):
        text = "the code called exit(); leave results in `results` instead"
    where = f" (line {line})" if line else ""
    return {"ok": False, "error_type": name, "error": f"{name}: {text}{where}", "line": line}
