"""A seccomp allow-list through libseccomp (ctypes): only the system calls analysis code needs.

Everything not listed fails with EPERM (clone3 with ENOSYS, so glibc falls back to the
filterable `clone`): no new processes, no sockets of any kind (socketpair included), no
SysV/POSIX IPC, no memfd, no inotify/fanotify/dnotify, no metadata changes (chmod, chown,
utimes, xattrs), no links, no mounts or namespaces. Calls that are needed but dangerous with
some arguments are allowed only with safe ones: `clone` only for threads, `prlimit64` only
to read this process's limits, `getpriority` only for itself, `fcntl` without F_SETOWN /
F_SETSIG / F_NOTIFY / F_SETLEASE, `ioctl` only for terminal queries and FIONBIO/FIONREAD,
and signals only to the worker itself (a second, hand-written filter).
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

ALLOWED = (
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore", "mbind",
    "get_mempolicy", "set_mempolicy", "membarrier",
    # files, confined to the scratch dir and the libraries by Landlock
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "open", "openat", "close", "close_range", "lseek", "stat", "fstat", "lstat",
    "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat", "faccessat2", "getdents",
    "getdents64", "getcwd", "chdir", "fchdir", "rename", "renameat", "renameat2", "mkdir",
    "mkdirat", "rmdir", "unlink", "unlinkat", "readlink", "readlinkat", "truncate", "ftruncate",
    "fallocate", "fsync", "fdatasync", "flock", "umask", "dup", "dup2", "dup3", "pipe", "pipe2",
    "sendfile", "copy_file_range", "splice", "tee",
    # waiting and time
    "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl",
    "epoll_wait", "epoll_pwait", "eventfd2", "futex", "futex_waitv", "sched_yield",
    "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time",
    "timerfd_create", "timerfd_settime", "timerfd_gettime", "getrusage", "times",
    # threads and this process
    "exit", "exit_group", "set_tid_address", "set_robust_list", "rseq", "arch_prctl",
    "prctl", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getcpu",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
    "rt_sigsuspend", "sigaltstack", "kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
    "getresuid", "getresgid", "getpgrp", "getpgid", "getsid", "uname", "sysinfo", "getrandom",
    "wait4", "waitid", "getrlimit", "ugetrlimit",
    # the already-connected channel to the host (no socket can be made)
    "sendto", "recvfrom", "sendmsg", "recvmsg", "shutdown", "getsockopt", "getsockname",
    "getpeername",
)
"""System calls allowed without conditions (names absent on an architecture are skipped)."""

F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY = 8, 10, 15, 1024, 1026
FCNTL_DENIED = (F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY)
"""fcntl commands that signal other processes or watch other folders."""

IOCTL_ALLOWED = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)
"""TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX: what Python and numpy ask."""

WATCHED = ("memfd_create", "socketpair", "socket", "shmget", "msgget", "semget", "mq_open",
           "inotify_init1", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
           "fchownat", "utimensat", "setxattr", "fsetxattr", "link", "symlink", "fork",
           "execve", "unshare", "mount", "setuid", "memfd_secret", "userfaultfd", "io_uring_setup")
"""Calls the tests and `planexec doctor` name as denied (everything not in ALLOWED is)."""


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
    """The pid-independent allow-list as raw BPF, built once by libseccomp."""
    lib = _lib()
    if lib is None:
        raise SeccompError("libseccomp is not installed (apt install libseccomp2)")
    ctx = lib.seccomp_init(_act_errno(errno.EPERM))
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        for name in ALLOWED:
            _rule(lib, ctx, ACT_ALLOW, name)
        _rule(lib, ctx, _act_errno(errno.ENOSYS), "clone3")
        _rule(lib, ctx, ACT_ALLOW, "clone", (0, CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
        _rule(lib, ctx, ACT_ALLOW, "prlimit64", (0, CMP_EQ, 0, 0), (2, CMP_EQ, 0, 0))
        _rule(lib, ctx, ACT_ALLOW, "getpriority", (1, CMP_EQ, 0, 0))
        for cmd in (0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14, 16, 36, 37, 38, 1025, 1030, 1031,
                    1032, 1033, 1034):
            # F_DUPFD..F_GETOWN_EX, OFD locks, F_GETLEASE, F_DUPFD_CLOEXEC, pipe sizes, seals
            _rule(lib, ctx, ACT_ALLOW, "fcntl", (1, CMP_EQ, cmd, 0))
        for request in IOCTL_ALLOWED:
            _rule(lib, ctx, ACT_ALLOW, "ioctl", (1, CMP_EQ, request, 0))
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


def prepare(pid: int | None = None) -> None:
    """Build the static filter now (the fork server does this once, before forking), and the
    signal filter for `pid` if given (a spare worker, before its request)."""
    global _static_program
    if _static_program is None:
        _static_program = _build_static()
    if pid is not None:
        _signal_program(pid)


@lru_cache(maxsize=1)
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
          *cmps: tuple[int, int, int, int]) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        return  # not a syscall on this architecture
    args = (_ArgCmp * len(cmps))(*(_ArgCmp(*c) for c in cmps)) if cmps else None
    rc = lib.seccomp_rule_add_array(ctypes.c_void_p(ctx), action, nr, len(cmps), args)
    if rc != 0:
        raise SeccompError(-rc, f"seccomp rule for {name} failed")
