"""The worker: what runs in a process forked from the fork server, before and after it confines itself.

As a spare it sets up what does not depend on its request (`get_ready`); given a request it
applies the rest, loads the inputs and answers `run`, `get` and `set` over its socket with a
`RunState`. It never returns: it ends with `os._exit`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, NoReturn

from planexec.sandbox import cgroup, confine, namespaces, wire
from planexec.sandbox.runstate import NATIVE_LOG, RunState


def has_quota(layers: list[str] | tuple[str, ...]) -> bool:
    """Whether the worker mounts a quota tmpfs as its scratch (it needs its own mount namespace)."""
    return "quota" in layers and "namespaces" in layers


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
        quota = has_quota(request["layers"])
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
    limits: tuple[int, int] | None = None
    """cgroup (memory bytes, tasks) already set, from the server's guess (the last request's)."""
    dir_fd: int = -1
    """The quota scratch folder, opened, with the output already redirected into it."""


_ready: _Ready | None = None
_phases: list[tuple[str, int]] = []
"""(phase, monotonic ns when it ended) of this worker's start-up, sent to the host when ready."""


def _mark(phase: str) -> None:
    _phases.append((phase, time.monotonic_ns()))


def main(comm_fd: int, request: dict[str, Any]) -> NoReturn:
    """Entry point in a spare worker given its request: confine, load inputs, serve requests."""
    status = 70
    try:
        status = _serve(comm_fd, request)
    finally:
        os._exit(status)


def get_ready(keep_fd: int, server_pid: int, prep: Preparation, group: str | None,
              limits: tuple[int, int] | None) -> None:
    """What a spare worker does before it has a request: its own session, no inherited
    descriptors, (as root) its own cgroup with the `limits` the request will likely ask for,
    its namespaces' mounts, the request-independent part of confinement, and a warm-up run."""
    global _ready
    _isolate(keep_fd, server_pid, prep.isolated)
    _mark("spare: forked")
    set_limits = None
    if group:
        try:
            if limits is not None and "cgroup" in prep.layers:
                cgroup.enter(group, *limits)
                set_limits = limits
            else:
                cgroup.join(group)
        except OSError:
            pass  # enter() tries again, and fails closed, if the request asks for the layer
        _mark("spare: cgroup made")
    _ready = _set_up(prep)
    _ready.limits = set_limits
    _mark("spare: mounts, confinement ahead")
    warm_up()
    _mark("spare: warm-up")


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
        if prep.quota_bytes:  # the scratch folder is known before the request: use it now
            _redirect_output(prep.scratch, uid)
            ready.dir_fd = os.open(prep.scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        confine.prepare(prep.layers)
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
        if not ready.prep.quota_bytes:
            os.chown(scratch, uid, uid)
            os.chmod(scratch, 0o700)
        os.chown(base, 0, uid)
        os.chmod(base, 0o750)
        for name in os.listdir(base):
            path = os.path.join(base, name)
            if os.path.isfile(path) and not os.path.islink(path):
                os.chown(path, 0, uid)
                os.chmod(path, 0o640)
    _mark("folder ownership")
    if "cgroup" in layers and req.get("cgroup"):
        limits = int(req["limits"]["cgroup_bytes"]), int(req["limits"]["processes"])
        if limits != ready.limits:
            cgroup.enter(str(req["cgroup"]), *limits)
        done.append("cgroup")
        _mark("cgroup limits")
    mapped = [os.open(path, os.O_RDONLY | os.O_CLOEXEC) for path in req.get("read_files") or ()]
    return uid, mapped


WARM_UP_CODE = "results = {'mean': float(np.arange(100).mean()), 'text': str([1.5])}"


def warm_up() -> None:
    """Run a trivial snippet through the whole run path (exec, numpy, encoding, figures, JSON).

    A forked worker copies each warm-heap page it first writes; doing that once here, in the
    fork server and in a spare before its request, keeps those copies off a run's critical path.
    """
    state = RunState({"base": "", "output_chars": 100}, "", {})
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
    _mark("request")
    scratch = req["scratch"]
    sock = socket.socket(fileno=comm_fd)
    try:
        prepared: list[str] = []
        uid, mapped = _prepare(req, prepared)
        dir_fd = _ready.dir_fd if _ready is not None else -1
        if dir_fd < 0:
            _redirect_output(scratch, uid)
            dir_fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            _mark("output redirected")
        applied = confine.apply(tuple(req["layers"]), [req["base"]], scratch,
                                confine.Limits(**req["limits"]), uid, _mark)
        applied[1:1] = prepared
    except Exception as exc:  # noqa: BLE001 - fail closed and say why
        wire.send(sock, {"ready": False, "error_type": "SandboxError",
                         "error": f"could not confine the worker: {type(exc).__name__}: {exc}"})
        return 72
    state = RunState(req, scratch, dict(zip(req.get("read_files") or (), mapped, strict=True)))
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
    _mark("inputs loaded")
    wire.send(sock, {"ready": True, "layers": applied, "phases": _phases}, fds=[dir_fd])
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
