"""Process confinement applied in the worker: limits, identity, namespaces, cgroups, Landlock, seccomp.

Also detects, without side effects, which of these layers this machine offers, so
`Sandbox.capabilities()` and `planexec doctor` can say plainly what holds and what does not.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from planexec.sandbox import cgroup, landlock, namespaces, seccomp

LAYERS = ("rlimits", "capabilities", "identity", "namespaces", "cgroup", "quota", "landlock",
          "seccomp")
"""Kernel-side layers, in the order the worker applies them."""

REQUIRED = ("landlock", "seccomp")
"""Layers without which untrusted code is refused unless the user opts out (plus `identity` as root)."""

IDENTITY_BASE = 0x50000000
"""Workers of a root host run as uid = gid = IDENTITY_BASE + their host pid: unique, no passwd entry."""

SAFE_ENV = {
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1", "MPLBACKEND": "Agg",
    "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
}
"""The whole environment the worker sees (plus HOME/TMPDIR pointing at its scratch dir)."""

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522


@dataclass(frozen=True)
class Limits:
    """Resource limits of one worker process."""

    memory_bytes: int
    """Address space the code may add on top of the warm interpreter."""
    cpu_seconds: int
    """CPU time of the whole worker (the wall-clock timeout is enforced by the parent)."""
    file_bytes: int
    """Largest file the worker may write."""
    open_files: int = 64
    """File descriptors the worker may hold."""
    processes: int = 64
    """RLIMIT_NPROC and cgroup pids.max: tasks (threads) of the worker's own uid / group."""
    quota_bytes: int = 1 << 30
    """Size of the worker's tmpfs scratch space (all files together)."""
    cgroup_bytes: int = 0
    """cgroup memory limit (anonymous + memfd + tmpfs + page cache); 0 derives it."""


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers for confining a worker, and why a layer is missing."""

    landlock_abi: int
    seccomp: bool
    root: bool
    netns: bool
    notes: dict[str, str] = field(default_factory=dict)
    cgroup: bool = False

    @property
    def layers(self) -> tuple[str, ...]:
        """The kernel layers a worker will apply here."""
        have = {"rlimits": True, "capabilities": True, "identity": self.root,
                "namespaces": self.netns, "cgroup": self.cgroup, "quota": self.netns,
                "landlock": self.landlock_abi >= 1, "seccomp": self.seccomp}
        return tuple(name for name in LAYERS if have[name])

    @property
    def required(self) -> tuple[str, ...]:
        """Layers untrusted code needs here (identity only matters when the host is root)."""
        return REQUIRED + (("identity",) if self.root else ())

    @property
    def refusal(self) -> str | None:
        """Why untrusted code is refused on this machine by default, or None when it is not."""
        lacking = [name for name in self.required if name not in self.layers]
        if not lacking:
            return None
        return ("refusing to run untrusted code: this machine lacks sandbox layer(s) "
                + "; ".join(f"{n} ({self.notes.get(n, '')})" for n in lacking)
                + ". Pass Sandbox(allow_weaker=True) or set PLANEXEC_SANDBOX_ALLOW_WEAKER=1 "
                "to run anyway with the layers that remain")

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(name for name in LAYERS if name not in self.layers)

    def describe(self) -> list[tuple[str, bool, str]]:
        """(layer, available, plain explanation) rows for people."""
        have = {**{n: n in self.layers for n in LAYERS}, "policy": True}
        return [(name, have[name], self.notes.get(name, "")) for name in have]


def detect() -> Capabilities:
    """Probe the kernel and libraries; nothing is applied to this process."""
    abi = landlock.abi_version()
    has_seccomp = seccomp.available()
    root = os.geteuid() == 0
    has_ns, ns_note = namespaces.available()
    group, group_note = cgroup.find()
    notes = {
        "policy": "static AST lint before anything runs (a lint, not a boundary)",
        "rlimits": "RLIMIT_AS/CPU/FSIZE/NOFILE/NPROC/CORE set in the worker; one wall-clock "
                   "deadline per run kills its process group. RLIMIT_AS does not count memfd, "
                   "tmpfs or page cache (the cgroup layer does)",
        "capabilities": "all Linux capabilities dropped and no_new_privs set"
                        if root else "already unprivileged; no_new_privs set",
        "identity": ("worker runs as its own uid/gid (0x50000000 + pid, no passwd entry, no "
                     "groups): it cannot chmod/chown/touch/xattr host files, stat inside 0700 "
                     "folders, and RLIMIT_NPROC binds it") if root else
                    (f"NOT available: the host is not root, so the worker keeps your uid "
                     f"{os.geteuid()}; files you own stay changeable in metadata (seccomp "
                     "denies chmod/chown/utimes/xattr calls)"),
        "namespaces": (ns_note + ": no host processes, SysV/POSIX IPC, sockets, abstract unix "
                       "sockets or host mounts visible") if has_ns else f"NOT available: {ns_note}",
        "quota": ("scratch is a size-limited tmpfs in the worker's mount namespace (all files "
                  "together, fallocate included)") if has_ns else
                 "NOT available (needs the mount namespace): only RLIMIT_FSIZE caps each file, "
                 "not their total",
        "cgroup": (f"{group_note}: memory limit counts memfd, tmpfs and page cache; pids.max "
                   "bounds threads however made") if group else f"NOT available: {group_note}",
    }
    if abi >= 1:
        parts = ["filesystem (reads: Python and its libraries and the run's inputs; writes: "
                 "the scratch dir; metadata changes and stat() are NOT covered)"]
        parts.append("TCP bind/connect" if abi >= 4 else "no TCP control (ABI < 4)")
        parts.append("signals/abstract sockets scoped" if abi >= 6 else
                     "no signal scoping (ABI < 6): seccomp and the namespaces hold those")
        notes["landlock"] = f"ABI {abi}: " + ", ".join(parts)
    else:
        notes["landlock"] = ("NOT available: this kernel lacks Landlock; file reads and writes "
                             "outside the scratch dir are not blocked by the kernel")
    if has_seccomp:
        notes["seccomp"] = (f"allow-list of {len(seccomp.ALLOWED)} system calls (+ argument-"
                            "checked clone/fcntl/ioctl/prlimit64/getpriority); denied among "
                            "others: fork/exec, socket and socketpair, SysV/POSIX IPC, memfd, "
                            "inotify, chmod/chown/utimes/xattr, links, mounts; kill/tgkill only "
                            "towards the worker itself (F_SETOWN/SIGIO denied too)")
    else:
        notes["seccomp"] = ("NOT available: libseccomp.so.2 missing or kernel without seccomp; "
                            "process creation and network are not blocked by the kernel")
    return Capabilities(abi, has_seccomp, root, has_ns, notes, cgroup=group is not None)


@lru_cache(maxsize=1)
def read_paths() -> list[str]:
    """Trees the worker may read: Python's stdlib, site-packages and system libraries."""
    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.update(p for p in sys.path if p.endswith(("site-packages", "lib-dynload")))
    paths.update(("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"))
    resolved = {os.path.realpath(p) for p in paths if p and os.path.isdir(p)}
    return sorted(resolved | {p for p in paths if p and os.path.isdir(p)})


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def set_parent_death_signal(sig: int) -> None:
    _libc().prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)


def set_limits(limits: Limits) -> None:
    """Lower the worker's resource limits (soft = hard, so they cannot be raised again)."""
    vm = _vm_size_bytes()

    def both(kind: int, value: int) -> None:
        _soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))

    both(resource.RLIMIT_CORE, 0)
    both(resource.RLIMIT_AS, vm + limits.memory_bytes)
    both(resource.RLIMIT_CPU, max(1, limits.cpu_seconds))
    both(resource.RLIMIT_FSIZE, limits.file_bytes)
    both(resource.RLIMIT_NOFILE, limits.open_files)
    both(resource.RLIMIT_NPROC, limits.processes)


_vm_size: int | None = None


def remember_vm_size() -> None:
    """Measure the warm interpreter's address space once; forked workers inherit the value."""
    global _vm_size
    _vm_size = None
    _vm_size = _vm_size_bytes()


def _vm_size_bytes() -> int:
    if _vm_size is not None:
        return _vm_size
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


_bounding_dropped = False


def drop_privileges() -> None:
    """Set no_new_privs and drop the bounding and ambient capability sets (needs no other layer).

    The effective set stays until `clear_privileges`, so a spare can do this ahead of time.
    """
    global _bounding_dropped
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if _bounding_dropped or (os.geteuid() != 0 and _effective_caps() == 0):
        return
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last cap is fine
    _bounding_dropped = True


def clear_privileges() -> None:
    """Empty the effective, permitted and inheritable sets (after any uid change)."""
    if os.geteuid() != 0 and _effective_caps() == 0:
        return
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc().capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def worker_identity(pid: int) -> int:
    """The uid (and gid) of the worker whose host pid is `pid`."""
    return IDENTITY_BASE + pid


def become(uid: int) -> None:
    """Drop to `uid`/`uid` with no supplementary groups, for real, saved and filesystem ids."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getgroups():
        raise OSError("the worker could not leave uid 0")


def _effective_caps() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0


def scrub_environment(scratch: str) -> None:
    """Replace the environment with SAFE_ENV: no keys, tokens or user paths reach the code."""
    os.environ.clear()
    os.environ.update(SAFE_ENV)
    os.environ.update({"HOME": scratch, "TMPDIR": scratch, "PATH": "/usr/bin:/bin"})


DEVICES = (("/dev/null", landlock.READ_FILE | landlock.WRITE_FILE),
           ("/dev/urandom", landlock.READ_FILE), ("/dev/zero", landlock.READ_FILE))
"""Single files a Landlocked worker may use."""
_ruleset: landlock.Ruleset | None = None


def prepare(layers: tuple[str, ...]) -> None:
    """Do ahead, in a spare worker, the part of `apply` that does not depend on its request:
    drop the bounding capabilities, start the Landlock ruleset with the library trees and
    devices, build the seccomp signal filter for this pid. Nothing here confines yet."""
    global _ruleset
    if "capabilities" in layers:
        drop_privileges()
    if "landlock" in layers:
        _ruleset = _library_ruleset()
    if "seccomp" in layers:
        seccomp.prepare(os.getpid())


def _library_ruleset() -> landlock.Ruleset:
    """A Landlock ruleset allowing reads of Python's trees and the devices (not yet enforced)."""
    ruleset = landlock.Ruleset()
    ruleset.allow(read_paths(), landlock.READ_RIGHTS)
    for path, rights in DEVICES:
        ruleset.allow([path], rights)
    return ruleset


def apply(layers: tuple[str, ...], reads: list[str], scratch: str, limits: Limits,
          uid: int | None, mark: Callable[[str], None] | None = None) -> list[str]:
    """Apply the process-level layers in order; returns what was applied. Raises if one fails.

    Namespaces, cgroup and quota are set up earlier by the worker (they need root and a
    fresh mount table); `uid` is the identity to drop to, or None to keep this one. `mark`
    is told each layer's name as soon as it holds (the worker times them).
    """
    global _ruleset
    applied: list[str] = []

    def done(name: str) -> None:
        applied.append(name)
        if mark is not None:
            mark(name.split("(")[0])

    if "rlimits" in layers:
        set_limits(limits)
        done("rlimits")
    if "capabilities" in layers:
        drop_privileges()
    elif {"landlock", "seccomp", "identity"} & set(layers):
        _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if "identity" in layers and uid is not None:
        become(uid)
        done(f"identity(uid {uid})")
    if "capabilities" in layers:
        clear_privileges()
        done("capabilities")
    if "landlock" in layers:
        ruleset, _ruleset = _ruleset or _library_ruleset(), None
        ruleset.allow(reads, landlock.READ_RIGHTS)
        ruleset.allow([scratch], landlock.WRITE_RIGHTS)
        done("landlock(" + ",".join(ruleset.restrict()) + ")")
    if "seccomp" in layers:
        seccomp.install()
        done("seccomp")
    return applied
