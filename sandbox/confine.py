"""Process confinement applied in the worker: resource limits, capabilities, Landlock, seccomp.

Also detects, without side effects, which of these layers this machine offers, so
`Sandbox.capabilities()` and `planexec doctor` can say plainly what holds and what does not.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache

from planexec.sandbox import landlock, seccomp

LAYERS = ("rlimits", "capabilities", "landlock", "seccomp")
"""Kernel-side layers, in the order the worker applies them."""

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
    """RLIMIT_NPROC (not enforced by Linux for uid 0; seccomp blocks fork there)."""


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers for confining a worker, and why a layer is missing."""

    landlock_abi: int
    seccomp: bool
    root: bool
    netns: bool
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def layers(self) -> tuple[str, ...]:
        """The kernel layers a worker will apply here."""
        have = {"rlimits": True, "capabilities": True, "landlock": self.landlock_abi >= 1,
                "seccomp": self.seccomp}
        return tuple(name for name in LAYERS if have[name])

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(name for name in LAYERS if name not in self.layers)

    def describe(self) -> list[tuple[str, bool, str]]:
        """(layer, available, plain explanation) rows for people."""
        have = {**{n: n in self.layers for n in LAYERS}, "policy": True, "netns": self.netns}
        return [(name, have[name], self.notes.get(name, "")) for name in have]


def detect() -> Capabilities:
    """Probe the kernel and libraries; nothing is applied to this process."""
    abi = landlock.abi_version()
    has_seccomp = seccomp.available()
    root = os.geteuid() == 0
    netns = root and hasattr(_libc(), "unshare")
    notes = {
        "policy": "static AST lint before anything runs (a lint, not a boundary)",
        "rlimits": "RLIMIT_AS/CPU/FSIZE/NOFILE/NPROC/CORE set in the worker; a wall-clock "
                   "timeout kills its process group"
                   + ("; RLIMIT_NPROC does not bind uid 0 (seccomp blocks fork instead)" if root else ""),
        "capabilities": "all Linux capabilities dropped and no_new_privs set"
                        if root else "already unprivileged; no_new_privs set",
    }
    if abi >= 1:
        parts = ["filesystem (reads: Python and its libraries; writes: the scratch dir)"]
        parts.append("TCP bind/connect" if abi >= 4 else "no TCP control (ABI < 4)")
        parts.append("signals/abstract sockets scoped" if abi >= 6 else "no signal scoping (ABI < 6)")
        notes["landlock"] = f"ABI {abi}: " + ", ".join(parts)
    else:
        notes["landlock"] = ("NOT available: this kernel lacks Landlock; file reads and writes "
                             "outside the scratch dir are not blocked by the kernel")
    if has_seccomp:
        notes["seccomp"] = "fork/exec, sockets, ptrace, setrlimit, signals to others, mounts denied"
    else:
        notes["seccomp"] = ("NOT available: libseccomp.so.2 missing or kernel without seccomp; "
                            "process creation and network are not blocked by the kernel")
    notes["netns"] = ("available (root) but not used: seccomp denies socket() and Landlock "
                      "denies TCP" if netns else "NOT available: unshare(CLONE_NEWNET) needs root")
    return Capabilities(abi, has_seccomp, root, netns, notes)


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


def drop_capabilities() -> None:
    """Set no_new_privs and drop every capability (bounding, ambient, effective, permitted)."""
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if os.geteuid() != 0 and _effective_caps() == 0:
        return
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last cap is fine
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


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


def apply(layers: tuple[str, ...], scratch: str, limits: Limits, read_files: tuple[str, ...] = ()) -> list[str]:
    """Apply the requested layers in order; returns what was applied. Raises if one fails.

    `read_files` are single files the worker may read (and nothing else): file-backed inputs.
    """
    applied = []
    if "rlimits" in layers:
        set_limits(limits)
        applied.append("rlimits")
    if "capabilities" in layers:
        drop_capabilities()
        applied.append("capabilities")
    elif "landlock" in layers or "seccomp" in layers:
        _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if "landlock" in layers:
        devices = [("/dev/null", landlock.READ_FILE | landlock.WRITE_FILE),
                   ("/dev/urandom", landlock.READ_FILE), ("/dev/zero", landlock.READ_FILE)]
        devices += [(path, landlock.READ_FILE) for path in read_files]
        features = landlock.restrict(read_paths(), [scratch], devices)
        applied.append("landlock(" + ",".join(features) + ")")
    if "seccomp" in layers:
        seccomp.install()
        applied.append("seccomp")
    return applied
