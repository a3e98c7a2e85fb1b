"""The fork server process: imports numpy, scipy, skimage and matplotlib once, then forks workers.

It says ready once the modules every run needs are loaded; the maker (below) loads the rest.

It keeps one spare worker per kind of request (its layers and quota), forked and prepared
ahead of time: in its namespaces, with its mounts, its cgroup and likely limits, the
request-independent part of its confinement, and the pages a run writes already copied by a
warm-up run. A request is then handed to a process that only applies what depends on it
(run folder, inputs, rlimits, uid, Landlock's last rules, seccomp). A second warm process,
the maker, forks the next spares (as the server's own children, CLONE_PARENT) while the
server goes on answering. Quota tmpfs are mounted, each in its worker's own mount namespace,
on one empty folder the server owns (`planexec-scratch-<pid>-*`), so a spare knows its
scratch path before its request and per-run folders are never mount points.

Run as `python -I -m planexec.sandbox.server FD` by `forkserver.ForkServer`.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from planexec.sandbox import cgroup, confine, namespaces, preload
from planexec.sandbox.handle import memory_folder
from planexec.sandbox.worker import Preparation, has_quota

MAX_SPARES = 4
"""Kinds of request with a spare waiting; the least recently used kind is dropped beyond."""
ANCHOR_PREFIX = "planexec-scratch-"


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads, and `pid` itself."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


class _Spare:
    """A worker forked ahead of time for requests of one kind, waiting for its request.

    Forking the warm interpreter, new namespaces, mounts, a cgroup and the first copies of
    written pages are most of a run's start-up cost; they overlap the previous run instead.
    """

    def __init__(self, pid: int, sock: socket.socket, prep: Preparation, group: str) -> None:
        self.pid, self.sock, self.prep, self.group = pid, sock, prep, group

    def hand_over(self, request: dict[str, Any], comm_fd: int) -> int:
        request["cgroup"] = self.group
        socket.send_fds(self.sock, [json.dumps(request).encode()], [comm_fd])
        self.sock.close()
        return self.pid

    def discard(self) -> None:
        self.sock.close()
        kill_group(self.pid)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        cgroup.remove(self.group)


def _fork_spare(prep: Preparation, group: str, limits: tuple[int, int] | None,
                extra_flags: int = 0) -> _Spare:
    """Fork a spare (into new namespaces if its kind asks); `extra_flags` e.g. CLONE_PARENT."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    flags = (namespaces.NAMESPACE_FLAGS if prep.isolated else 0) | extra_flags
    pid = namespaces.clone(flags) if flags else os.fork()
    if pid == 0:
        ours.close()
        _wait_as_spare(theirs, prep, group, limits)
    theirs.close()
    return _Spare(pid, ours, prep, group)


def _wait_as_spare(sock: socket.socket, prep: Preparation, group: str,
                   limits: tuple[int, int] | None) -> None:
    """In a spare child: get ready, wait for a request and become its worker; exit if the server goes."""
    from planexec.sandbox import worker

    server = int(group[len(cgroup.PREFIX):].split("-")[0])  # the group is named after the server
    worker.get_ready(sock.fileno(), server, prep, group if cgroup.find()[0] else None, limits)
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 2)
    except OSError:
        os._exit(0)
    if not data or not fds:
        os._exit(0)
    sock.close()
    worker.main(fds[0], json.loads(data))


class _Maker:
    """A warm copy of the server that forks spares for it, as the server's own children
    (CLONE_PARENT): the server answers requests while the next spare is being forked.

    It first loads the modules the server said ready without (`preload.LATER`) and says so;
    until then the server forks spares itself, and the spares it makes afterwards have them.
    """

    def __init__(self, ctrl: socket.socket) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            os.close(ctrl.detach())  # the host must see the server's end close when it goes
            _make_spares(theirs)
        theirs.close()
        self.pid, self.sock = pid, ours
        self.pending: dict[Preparation, int] = {}
        self.loaded = False

    def ask(self, prep: Preparation, group: str, limits: tuple[int, int]) -> None:
        self.sock.send(json.dumps({"prep": asdict(prep), "group": group, "limits": limits}).encode())
        self.pending[prep] = self.pending.get(prep, 0) + 1

    def receive(self) -> _Spare | None:
        """The next spare the maker made (waits for it); None if that fork failed or the
        message said it has loaded everything. Raises EOFError when the maker is gone."""
        data, fds, _flags, _addr = socket.recv_fds(self.sock, 65536, 1)
        if not data:
            raise EOFError("the spare maker stopped")
        msg = json.loads(data)
        if msg.get("loaded"):
            self.loaded = True
            return None
        prep = _preparation(msg["prep"])
        self.pending[prep] = self.pending.get(prep, 1) - 1
        if not fds:
            return None
        return _Spare(int(msg["pid"]), socket.socket(fileno=fds[0]), prep, str(msg["group"]))

    def close(self) -> None:
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _preparation(data: dict[str, Any]) -> Preparation:
    return Preparation(tuple(data["layers"]), int(data["quota_bytes"]), str(data["scratch"]))


def _yielding(work: Callable[[], None]) -> None:
    """Do `work` at a lower CPU priority, so the first workers (forked by the server meanwhile)
    get the CPU first; only where the priority can be raised back, since spares inherit it."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    lowered = _may_raise_priority()
    if lowered:
        os.setpriority(os.PRIO_PROCESS, 0, min(before + 10, 19))
    try:
        work()
    finally:
        if lowered:
            os.setpriority(os.PRIO_PROCESS, 0, before)


def _may_raise_priority() -> bool:
    """Whether this process holds CAP_SYS_NICE (needed to take a lowered priority back)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            caps = next(line for line in fh if line.startswith("CapEff:"))
        return bool(int(caps.split()[1], 16) >> 23 & 1)
    except (OSError, StopIteration, ValueError):
        return False


def _make_spares(sock: socket.socket) -> None:
    """The maker's loop: load the rest, then fork each spare asked for and pass its socket
    to the server."""
    confine.set_parent_death_signal(signal.SIGKILL)
    _yielding(preload.load_later)
    sock.send(json.dumps({"loaded": True}).encode())
    while True:
        data = sock.recv(65536)
        if not data:
            os._exit(0)
        msg = json.loads(data)
        reply = {"prep": msg["prep"], "group": msg["group"]}
        limits = (int(msg["limits"][0]), int(msg["limits"][1])) if msg.get("limits") else None
        try:
            spare = _fork_spare(_preparation(msg["prep"]), str(msg["group"]), limits,
                                namespaces.CLONE_PARENT)
        except OSError:
            sock.send(json.dumps(reply).encode())
            continue
        socket.send_fds(sock, [json.dumps({**reply, "pid": spare.pid}).encode()], [spare.sock.fileno()])
        spare.sock.close()


class _Spares:
    """The spare workers, one per kind of request, most recently used last."""

    def __init__(self, ctrl: socket.socket) -> None:
        self.ctrl = ctrl
        self.waiting: OrderedDict[Preparation, _Spare] = OrderedDict()
        self.made = 0
        self.maker: _Maker | None = None
        self._start_maker()

    def _start_maker(self) -> None:
        try:
            self.maker = _Maker(self.ctrl)
        except OSError:
            self.maker = None  # the server forks spares itself meanwhile

    def _group(self) -> str:
        self.made += 1
        return f"{cgroup.PREFIX}{os.getpid()}-{self.made}"

    def inbox(self) -> list[socket.socket]:
        """What to listen on besides the host: the maker, while it runs."""
        return [self.maker.sock] if self.maker is not None else []

    def receive(self) -> _Spare | None:
        """Take in the spare the maker sends; forget the maker if it has gone."""
        if self.maker is None:
            return None
        try:
            spare = self.maker.receive()
        except (OSError, EOFError, ValueError):
            self.maker.close()
            self.maker = None
            return None
        if spare is not None:
            old = self.waiting.pop(spare.prep, None)
            if old is not None:
                old.discard()
            self.waiting[spare.prep] = spare
            while len(self.waiting) > MAX_SPARES:
                self.waiting.popitem(last=False)[1].discard()
        return spare

    def hand_over(self, prep: Preparation, request: dict[str, Any], comm_fd: int) -> int:
        """Give `request` to the spare of its kind (waiting for the one the maker is making),
        or to a fresh one if there is none or it died."""
        while prep not in self.waiting and self.maker is not None and self.maker.pending.get(prep):
            self.receive()
        spare = self.waiting.pop(prep, None)
        if spare is not None:
            try:
                return spare.hand_over(request, comm_fd)
            except OSError:
                spare.discard()
        return _fork_spare(prep, self._group(), None).hand_over(request, comm_fd)

    def replace(self, prep: Preparation, limits: tuple[int, int]) -> None:
        """Have the next spare of this kind made (after answering the request that used one);
        its cgroup limits are set ahead to `limits`, the last request's (its worker checks).
        A maker that died is replaced first."""
        if self.maker is None:
            self._start_maker()
        if self.maker is not None and self.maker.loaded:
            try:
                self.maker.ask(prep, self._group(), limits)
                return
            except OSError:
                self.maker.close()
                self.maker = None
        try:
            self.waiting[prep] = _fork_spare(prep, self._group(), limits)
        except OSError:
            return
        while len(self.waiting) > MAX_SPARES:
            self.waiting.popitem(last=False)[1].discard()

    def discard_all(self) -> None:
        for spare in self.waiting.values():
            spare.discard()
        self.waiting.clear()
        if self.maker is not None:
            self.maker.close()
            self.maker = None


def _make_anchor() -> str:
    """The empty folder quota tmpfs are mounted on (one per server); stale ones are removed."""
    where = memory_folder() or tempfile.gettempdir()
    for name in os.listdir(where):
        owner = name[len(ANCHOR_PREFIX):].split("-", 1)[0]
        if name.startswith(ANCHOR_PREFIX) and owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            try:
                os.rmdir(os.path.join(where, name))
            except OSError:
                pass
    return tempfile.mkdtemp(prefix=f"{ANCHOR_PREFIX}{os.getpid()}-", dir=where)


def _serve(fd: int) -> None:
    ctrl = socket.socket(fileno=fd)
    preload.load_early()
    cgroup.remove_stale(os.getpid())
    anchor = _make_anchor()
    ctrl.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    children: dict[int, str] = {}
    dying: dict[int, str] = {}
    spares = _Spares(ctrl)
    groups: set[str] = set()  # groups of reaped workers to remove (the kernel may hold one briefly)
    try:
        while True:
            listen = [ctrl, *spares.inbox()]
            ready = select.select(listen, [], [], 0)[0]
            if not ready:  # housekeeping waits while a request or a spare is there
                for pid in list(dying):
                    if os.waitpid(pid, os.WNOHANG)[0]:
                        groups.add(dying.pop(pid))
                groups = {name for name in groups if not cgroup.remove(name)}
                ready = select.select(listen, [], [], 0.05 if dying or groups else None)[0]
            if any(sock is not ctrl for sock in ready):
                spares.receive()
            if ctrl not in ready:
                continue
            data, fds, _flags, _addr = socket.recv_fds(ctrl, 1 << 20, 4)
            if not data:
                break
            msg = json.loads(data)
            if msg["op"] == "spawn":
                request = msg["request"]
                if has_quota(request["layers"]):
                    request["scratch"] = anchor
                prep = Preparation.of(request)
                try:
                    pid = spares.hand_over(prep, request, fds[0])
                except OSError as exc:
                    ctrl.send(json.dumps({"error": f"could not start a worker: {exc}"}).encode())
                    continue
                finally:
                    for extra in fds:
                        os.close(extra)
                children[pid] = request["cgroup"]
                ctrl.send(json.dumps({"pid": pid}).encode())
                spares.replace(prep, (int(request["limits"]["cgroup_bytes"]),
                                      int(request["limits"]["processes"])))
            elif msg["op"] == "reap":
                ctrl.send(json.dumps(_reap(int(msg["pid"]), children, groups)).encode())
            elif msg["op"] == "release":
                pid = int(msg["pid"])
                if pid in children:
                    kill_group(pid)
                    dying[pid] = children.pop(pid)
    finally:
        spares.discard_all()
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
        try:
            os.rmdir(anchor)
        except OSError:
            pass


def _reap(pid: int, children: dict[int, str], groups: set[str]) -> dict[str, Any]:
    if pid not in children:
        return {"code": None, "signal": None}
    name = children.pop(pid)
    kill_group(pid)
    _, status = os.waitpid(pid, 0)
    if not cgroup.remove(name):
        groups.add(name)
    if os.WIFSIGNALED(status):
        return {"code": None, "signal": os.WTERMSIG(status)}
    return {"code": os.WEXITSTATUS(status), "signal": None}


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
