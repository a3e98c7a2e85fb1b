"""A seccomp filter through libseccomp (ctypes): no new processes, no network, no privilege games.

Threads stay allowed (BLAS and Python may start them); `fork`, `execve`, sockets, `ptrace`,
raising resource limits, signals to other processes, mounts, modules and io_uring fail
with EPERM (clone3 with ENOSYS, so glibc falls back to the filterable `clone`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
from functools import lru_cache

ACT_ALLOW = 0x7FFF0000
CMP_NE = 1
CMP_EQ = 4
CMP_MASKED_EQ = 7
CLONE_THREAD = 0x00010000
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

DENIED = (
    "fork", "vfork", "execve", "execveat", "socket", "ptrace", "process_vm_readv",
    "process_vm_writev", "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "setrlimit",
    "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "adjtimex", "sethostname",
    "setdomainname", "iopl", "ioperm", "quotactl", "name_to_handle_at", "open_by_handle_at",
    "fanotify_init", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "mount_setattr", "io_uring_setup", "io_uring_enter", "io_uring_register", "personality",
    "tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "capset", "memfd_secret",
)


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class SeccompError(OSError):
    """The seccomp filter could not be built or loaded."""


@lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)
    ]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_arch_native.restype = ctypes.c_uint32
    return lib


def load_library() -> bool:
    """Load libseccomp now (before the filesystem is confined); True when it is present."""
    return _lib() is not None


def available() -> bool:
    """libseccomp is loadable and the kernel supports seccomp filters."""
    lib = _lib()
    if lib is None:
        return False
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return any(line.startswith("Seccomp:") for line in fh)
    except OSError:
        return False


_static_program: bytes | None = None


def _build_static() -> bytes:
    """The pid-independent filter as raw BPF, built once by libseccomp."""
    lib = _lib()
    if lib is None:
        raise SeccompError("libseccomp is not installed (apt install libseccomp2)")
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    deny = _act_errno(errno.EPERM)
    try:
        for name in DENIED:
            _rule(lib, ctx, deny, name)
        _rule(lib, ctx, _act_errno(errno.ENOSYS), "clone3")
        _rule(lib, ctx, deny, "clone", (0, CMP_MASKED_EQ, CLONE_THREAD, 0))
        _rule(lib, ctx, deny, "prlimit64", (2, CMP_NE, 0, 0))
        _rule(lib, ctx, deny, "ioctl", (1, CMP_EQ, TIOCSTI, 0))
        _rule(lib, ctx, deny, "ioctl", (1, CMP_EQ, TIOCLINUX, 0))
        read_end, write_end = os.pipe()
        try:
            if lib.seccomp_export_bpf(ctypes.c_void_p(ctx), write_end) != 0:
                raise SeccompError("seccomp_export_bpf failed")
            os.close(write_end)
            write_end = -1
            chunks = []
            while chunk := os.read(read_end, 65536):
                chunks.append(chunk)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        lib.seccomp_release(ctx)
    return b"".join(chunks)


def prepare() -> None:
    """Build the static filter now (the fork server does this once, before forking)."""
    global _static_program
    if _static_program is None:
        _static_program = _build_static()


def _signal_program(pid: int) -> bytes:
    """Hand-written BPF: kill/tgkill/sigqueue only towards `pid` itself."""
    lib = _lib()
    assert lib is not None
    arch = lib.seccomp_arch_native()
    numbers = [lib.seccomp_syscall_resolve_name(n.encode()) for n in
               ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")]
    numbers = [n for n in numbers if n >= 0]
    allow, deny = 0x7FFF0000, _act_errno(errno.EPERM)
    n = len(numbers)
    prog = [
        (0x20, 0, 0, 4),  # ld arch
        (0x15, 1, 0, arch),  # jeq arch -> skip the kill
        (0x06, 0, 0, 0x80000000),  # ret KILL_PROCESS
        (0x20, 0, 0, 0),  # ld nr
    ]
    for i, nr in enumerate(numbers):
        prog.append((0x15, n - i, 0, nr))  # jeq nr -> the argument check
    prog.append((0x06, 0, 0, allow))
    prog += [
        (0x20, 0, 0, 20),  # ld args[0] high word
        (0x15, 0, 3, 0),  # jeq 0, else deny
        (0x20, 0, 0, 16),  # ld args[0] low word
        (0x15, 0, 1, pid),  # jeq pid, else deny
        (0x06, 0, 0, allow),
        (0x06, 0, 0, deny),
    ]
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _load(program: bytes) -> None:
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise SeccompError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def install() -> None:
    """Load the filters into the calling process; they cannot be removed. Needs no_new_privs."""
    prepare()
    assert _static_program is not None
    _load(_signal_program(os.getpid()))
    _load(_static_program)


def _rule(lib: ctypes.CDLL, ctx: int, action: int, name: str,
          cmp: tuple[int, int, int, int] | None = None) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        return  # not a syscall on this architecture
    args = (_ArgCmp * 1)(_ArgCmp(*cmp)) if cmp else None
    rc = lib.seccomp_rule_add_array(ctypes.c_void_p(ctx), action, nr, 1 if cmp else 0, args)
    if rc != 0:
        raise SeccompError(-rc, f"seccomp rule for {name} failed")
