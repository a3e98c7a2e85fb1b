"""Landlock (Linux >= 5.13) through raw syscalls: confine a process's filesystem, TCP and signals.

After `restrict()` the calling process (and anything it starts) may read only the given
read-only trees, write only inside the given writable trees, make no TCP connection or bind
(ABI >= 4), and signal no process outside its own Landlock domain (ABI >= 6).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15

_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR
WRITE_RIGHTS = (
    READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class LandlockError(OSError):
    """Landlock could not be applied."""


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    try:
        result = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                                 ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(result), 0)


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


class Ruleset:
    """A Landlock ruleset under construction: rules may be added ahead of time (a spare worker
    adds the library trees before its request), `restrict()` then enforces it on this process."""

    def __init__(self) -> None:
        abi = abi_version()
        if abi < 1:
            raise LandlockError("Landlock is not available in this kernel")
        self._libc = _libc()
        self.handled = _handled_fs(abi)
        attr = _RulesetAttr(self.handled, 0, 0)
        self.features = ["filesystem"]
        size = ctypes.sizeof(ctypes.c_uint64)
        if abi >= 4:
            attr.handled_access_net = 0b11  # BIND_TCP | CONNECT_TCP, and no port is allowed
            self.features.append("tcp")
            size = 2 * ctypes.sizeof(ctypes.c_uint64)
        if abi >= 6:
            attr.scoped = 0b11  # ABSTRACT_UNIX_SOCKET | SIGNAL
            self.features.append("signals")
            size = ctypes.sizeof(_RulesetAttr)
        fd = self._libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                ctypes.c_uint32(0))
        if fd < 0:
            raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset failed")
        self.fd = int(fd)

    def allow(self, paths: Iterable[str], rights: int) -> None:
        """Grant `rights` beneath each path (on single files, the file rights among them)."""
        for path in paths:
            _add_rule(self._libc, self.fd, path, rights & self.handled)

    def restrict(self) -> list[str]:
        """Confine the calling thread's process from now on; returns the features enforced."""
        try:
            if self._libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(self.fd), ctypes.c_uint32(0)) != 0:
                raise LandlockError(ctypes.get_errno(), "landlock_restrict_self failed")
        finally:
            self.close()
        return self.features

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def restrict(read_paths: Iterable[str], write_paths: Iterable[str],
             file_rules: Iterable[tuple[str, int]] = ()) -> list[str]:
    """Confine the calling thread's process from now on; returns the features enforced.

    `file_rules` grants rights on single files (e.g. `/dev/null`). Needs no_new_privs set.
    """
    ruleset = Ruleset()
    try:
        ruleset.allow(read_paths, READ_RIGHTS)
        ruleset.allow(write_paths, WRITE_RIGHTS)
        for path, rights in file_rules:
            ruleset.allow([path], rights)
        return ruleset.restrict()
    finally:
        ruleset.close()


def _add_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist needs no rule
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)
