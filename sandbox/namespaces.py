"""Linux namespaces for a worker (ctypes; Python 3.11 has no os.unshare) and its scratch quota.

The fork server starts each worker with a raw `clone()` into new PID, IPC, network and mount
namespaces, so a worker sees no host process, no SysV/POSIX IPC object, no socket (abstract
unix sockets included) and no mount of the host's. In its mount namespace the worker mounts
a size-limited tmpfs as its writable scratch space (the quota) and a private /proc.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from functools import lru_cache

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_PARENT = 0x00008000
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID
_SIGCHLD = 17
_SYS_CLONE = 56  # x86_64
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 1 << 14, 1 << 18


class NamespaceError(OSError):
    """A namespace or mount could not be set up."""


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


_PROBE = """
import ctypes, os, tempfile
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(%d) != 0:
    raise SystemExit(10 + ctypes.get_errno())
if libc.mount(b"none", b"/", None, ctypes.c_ulong(%d), None) != 0:
    raise SystemExit(3)
where = tempfile.mkdtemp()
ok = libc.mount(b"tmpfs", where.encode(), b"tmpfs", ctypes.c_ulong(0), b"size=1m") == 0
pid = os.fork()
if pid == 0:
    os._exit(0 if os.getpid() == 1 else 5)
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
libc.umount2(where.encode(), 0)
os.rmdir(where)
raise SystemExit(code if ok else 4)
"""


@lru_cache(maxsize=1)
def available() -> tuple[bool, str]:
    """Whether workers can get new PID/IPC/net/mount namespaces and a tmpfs here, and why not.

    Probed in a short-lived child interpreter, so this process is never changed.
    """
    if os.uname().machine != "x86_64":
        return False, f"raw clone() is wired for x86_64 only, not {os.uname().machine}"
    if os.geteuid() != 0:
        return False, "new namespaces need root here (unprivileged user namespaces are not used)"
    code = _PROBE % (NAMESPACE_FLAGS, MS_REC | MS_PRIVATE)
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"the namespace probe did not run: {exc}"
    if done.returncode != 0:
        return False, f"unshare/mount in a probe child failed (code {done.returncode})"
    return True, "new PID, IPC, network and mount namespaces per worker"


def clone(flags: int) -> int:
    """fork() into new namespaces: 0 in the child, the child's pid in the parent.

    Runs CPython's own before/after-fork hooks around the raw system call, as `os.fork()`
    does; the caller must be single-threaded (the fork server is).
    """
    api = ctypes.pythonapi
    libc = ctypes.PyDLL(None, use_errno=True)  # keeps the GIL held across the call, like fork()
    libc.syscall.restype = ctypes.c_long
    api.PyOS_BeforeFork()
    pid = libc.syscall(ctypes.c_long(_SYS_CLONE), ctypes.c_ulong(flags | _SIGCHLD),
                       ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_ulong(0))
    err = ctypes.get_errno()
    if pid == 0:
        api.PyOS_AfterFork_Child()
        return 0
    api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise NamespaceError(err, f"clone with namespaces failed: {os.strerror(err)}")
    return int(pid)


def host_pid() -> int:
    """This process's pid as the host sees it (the first NSpid), read before /proc is replaced."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("NSpid:"):
                return int(line.split()[1])
    return os.getpid()


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    libc = _libc()
    rc = libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                    ctypes.c_ulong(flags), data.encode() if data else None)
    if rc != 0:
        err = ctypes.get_errno()
        raise NamespaceError(err, f"mount {fstype or source} on {target} failed: {os.strerror(err)}")


def make_mounts_private() -> None:
    """Stop mounts made here from propagating to the host (and the host's from arriving)."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)


def mount_scratch(path: str, size_bytes: int, uid: int, gid: int) -> None:
    """A tmpfs of at most `size_bytes` on `path`, owned by the worker: its whole writable space."""
    size = max(1 << 20, int(size_bytes))
    _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"size={size},nr_inodes=4096,mode=0700,uid={uid},gid={gid}")


def mount_private_proc() -> None:
    """A /proc that shows only this PID namespace (the worker and its threads)."""
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")


def _hidden_ancestor(path: str) -> str | None:
    """The top-most folder above `path` that other users cannot traverse (e.g. /root), if any."""
    parts = path.strip("/").split("/")
    for i in range(1, len(parts)):
        folder = "/" + "/".join(parts[:i])
        try:
            if not os.stat(folder).st_mode & 0o001:
                return folder
        except OSError:
            return None
    return None


def expose(paths: list[str]) -> list[str]:
    """Make `paths` reachable for an unprivileged worker when they sit under a folder it may not
    traverse (Python installed under /root): in this mount namespace that folder becomes an
    empty tmpfs holding bind mounts of exactly `paths`. Returns the folders so covered.
    """
    groups: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        hidden = _hidden_ancestor(path)
        if hidden is not None and os.path.isdir(path):
            groups.setdefault(hidden, []).append(path)
    for hidden, members in groups.items():
        tops = [p for p in members if not any(p != q and p.startswith(q + "/") for q in members)]
        fds = {p: os.open(p, os.O_PATH | os.O_CLOEXEC) for p in tops}
        try:
            _mount("tmpfs", hidden, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=1024,mode=0755")
            for path, fd in fds.items():
                os.makedirs(path, 0o755, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC, None)
        finally:
            for fd in fds.values():
                os.close(fd)
    return sorted(groups)
