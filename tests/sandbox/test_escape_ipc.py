"""Escape classes 2, 3 and 9: sockets, SysV/POSIX IPC and signals that reach the host.

Held by the seccomp allow-list (no socket, socketpair, shm/msg/sem/mq call, F_SETOWN) and
by the worker's IPC, network and PID namespaces; Landlock's scoping (ABI >= 6) is a third
layer on top. Each test checks what arrives at a host socket, a host IPC object, a host
process, or what is left allocated after the run.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from .conftest import needs, only

ALL = needs("seccomp", "namespaces")
libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT, IPC_RMID = 0o1000, 0


@pytest.fixture
def unix_dgram(tmp_path):
    path = str(tmp_path / "host.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(path)
    os.chmod(path, 0o777)
    os.chmod(tmp_path, 0o755)
    srv.settimeout(0.3)
    yield path, srv
    srv.close()


@pytest.fixture
def abstract_dgram():
    name = f"\0planexec-test-{os.getpid()}-{time.monotonic_ns()}"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(name)
    srv.settimeout(0.3)
    yield name, srv
    srv.close()


def nothing_arrives(srv: socket.socket) -> bool:
    try:
        srv.recv(100)
    except TimeoutError:
        return True
    return False


SENDS = {
    "socketpair_dgram_sendto": "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\na.sendto(b'x', addr)",
    "socketpair_stream_sendto": "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)\na.sendto(b'x', addr)",
    "socketpair_seqpacket": "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)\na.sendto(b'x', addr)",
    "socket_dgram_sendto": "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.sendto(b'x', addr)",
    "socket_dgram_connect": "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.connect(addr)\ns.send(b'x')",
    "raw_socketpair_syscall": ("import ctypes\nfds = (ctypes.c_int * 2)()\nl = ctypes.CDLL(None, use_errno=True)\n"
                               "assert l.socketpair(1, 2, 0, fds) == 0, ctypes.get_errno()\n"
                               "s = socket.socket(fileno=fds[0])\ns.sendto(b'x', addr)"),
    "channel_sendto": ("import os, stat\nfor fd in range(3, 64):\n    try:\n"
                       "        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
                       "            socket.socket(fileno=os.dup(fd)).sendto(b'x', addr)\n"
                       "    except OSError:\n        pass\nraise RuntimeError('done')"),
}


@ALL
@pytest.mark.parametrize("how", sorted(SENDS))
def test_datagram_never_reaches_host_path_socket(raw, unix_dgram, how):
    path, srv = unix_dgram
    r = raw.run(f"import socket\n{SENDS[how]}", {"addr": path})
    assert not r.ok
    assert nothing_arrives(srv)


@ALL
@pytest.mark.parametrize("how", sorted(SENDS))
def test_datagram_never_reaches_host_abstract_socket(raw, abstract_dgram, how):
    name, srv = abstract_dgram
    r = raw.run(f"import socket\naddr = name.replace('@', chr(0), 1)\n{SENDS[how]}",
                {"name": "@" + name[1:]})
    assert not r.ok
    assert nothing_arrives(srv)


@needs("seccomp")
@pytest.mark.parametrize("how", ["socketpair_dgram_sendto", "socket_dgram_sendto", "raw_socketpair_syscall"])
def test_seccomp_alone_stops_unix_datagrams(unix_dgram, how):
    path, srv = unix_dgram
    r = only("rlimits", "seccomp").run(f"import socket\n{SENDS[how]}", {"addr": path})
    assert not r.ok and nothing_arrives(srv)


@needs("namespaces")
def test_network_namespace_alone_hides_abstract_sockets(abstract_dgram):
    """Without seccomp and Landlock, the worker's own network namespace holds abstract sockets."""
    name, srv = abstract_dgram
    r = only("rlimits", "namespaces").run(
        "import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        "s.sendto(b'x', name.replace('@', chr(0), 1))", {"name": "@" + name[1:]})
    assert not r.ok and nothing_arrives(srv)


@ALL
@pytest.mark.parametrize("family", ["AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET", "AF_UNIX"])
def test_no_socket_family_can_be_made(raw, family):
    r = raw.run(f"import socket\ns = socket.socket(socket.{family}, socket.SOCK_DGRAM)\nresults = {{'fd': s.fileno()}}")
    assert not r.ok and "fd" not in r.results


# --- SysV and POSIX IPC ---------------------------------------------------------------------


class HostSegment:
    """A private 0600 SysV shared-memory segment of this (host) process holding a marker."""

    def __init__(self) -> None:
        libc.shmat.restype = ctypes.c_void_p
        self.id = libc.shmget(0, 4096, IPC_CREAT | 0o600)  # IPC_PRIVATE
        assert self.id >= 0
        addr = libc.shmat(self.id, None, 0)
        ctypes.memmove(addr, b"HOST-SHM-MARKER-1234", 20)
        libc.shmdt(ctypes.c_void_p(addr))

    def close(self) -> None:
        libc.shmctl(self.id, IPC_RMID, None)


@pytest.fixture
def host_segment():
    seg = HostSegment()
    yield seg
    seg.close()


READ_SHM = """
import ctypes
l = ctypes.CDLL(None, use_errno=True)
l.shmat.restype = ctypes.c_void_p
found = []
for shmid in list(range(0, 64)) + [target]:
    addr = l.shmat(shmid, None, 0o10000)  # SHM_RDONLY
    if addr not in (None, ctypes.c_void_p(-1).value):
        found.append(ctypes.string_at(addr, 20).decode('latin-1'))
for idx in range(0, 64):  # SHM_STAT walks every segment without knowing its key
    buf = ctypes.create_string_buffer(256)
    if l.shmctl(idx, 13, buf) >= 0:
        found.append('stat')
results = {'found': found}
"""


@ALL
def test_host_shared_memory_is_invisible(raw, host_segment):
    r = raw.run(READ_SHM, {"target": host_segment.id})
    assert "HOST-SHM-MARKER" not in repr(r.results) + r.stdout + r.stderr


@needs("namespaces")
def test_ipc_namespace_alone_hides_host_segment(host_segment):
    r = only("rlimits", "namespaces").run(READ_SHM, {"target": host_segment.id})
    assert r.ok and "HOST-SHM-MARKER" not in repr(r.results)


@needs("seccomp")
def test_seccomp_alone_hides_host_segment(host_segment):
    r = only("rlimits", "seccomp").run(READ_SHM, {"target": host_segment.id})
    assert "HOST-SHM-MARKER" not in repr(r.results)


def sysv_keys(kind: str) -> set[int]:
    try:
        with open(f"/proc/sysvipc/{kind}", encoding="ascii") as fh:
            next(fh)
            return {int(line.split()[0]) for line in fh if line.strip()}
    except OSError:
        return set()


LEAVE = {
    "shm": "l.shmget(key, 4096, 0o1000 | 0o666)",
    "msg": "l.msgget(key, 0o1000 | 0o666)",
    "sem": "l.semget(key, 1, 0o1000 | 0o666)",
}


@ALL
@pytest.mark.parametrize("kind", sorted(LEAVE))
def test_sysv_objects_are_not_left_behind(raw, kind):
    key = 0x51A0000 + os.getpid() % 0xFFFF
    r = raw.run(f"import ctypes\nl = ctypes.CDLL(None, use_errno=True)\nresults = {{'id': {LEAVE[kind]}}}",
                {"key": key})
    assert key not in sysv_keys(kind)
    again = raw.run(f"import ctypes\nl = ctypes.CDLL(None, use_errno=True)\nresults = {{'id': "
                    f"{LEAVE[kind].replace('0o1000 | ', '')}}}", {"key": key})
    assert again.results.get("id", -1) == -1 or not r.results.get("id", -1) >= 0


@ALL
@pytest.mark.parametrize("flavour", ["mq_open", "shm_open"])
def test_posix_ipc_is_not_left_behind(raw, flavour):
    name = f"/planexec-{flavour}-{os.getpid()}"
    code = {"mq_open": "import ctypes\nl = ctypes.CDLL('librt.so.1', use_errno=True)\n"
                       "results = {'fd': l.mq_open(name.encode(), 0o100 | 2, 0o666, None)}",
            "shm_open": "import os\nfd = os.open('/dev/shm' + name, os.O_CREAT | os.O_RDWR, 0o666)\n"
                        "os.write(fd, b'x')\nresults = {'fd': fd}"}[flavour]
    raw.run(code, {"name": name})
    assert not os.path.exists("/dev/mqueue" + name) and not os.path.exists("/dev/shm" + name)


@ALL
def test_shared_memory_does_not_carry_between_runs(raw):
    key = 0x52A0000 + os.getpid() % 0xFFFF
    raw.run("import ctypes\nl = ctypes.CDLL(None, use_errno=True)\nl.shmat.restype = ctypes.c_void_p\n"
            "i = l.shmget(key, 4096, 0o1000 | 0o666)\na = l.shmat(i, None, 0)\n"
            "ctypes.memmove(a, b'CARRIED', 7)\nresults = {}", {"key": key})
    r = raw.run("import ctypes\nl = ctypes.CDLL(None, use_errno=True)\nl.shmat.restype = ctypes.c_void_p\n"
                "i = l.shmget(key, 4096, 0)\nv = ''\nif i >= 0:\n    a = l.shmat(i, None, 0)\n"
                "    v = ctypes.string_at(a, 7).decode()\nresults = {'v': v}", {"key": key})
    assert r.results.get("v", "") != "CARRIED"


# --- signals to host processes --------------------------------------------------------------


@pytest.fixture
def signal_target(tmp_path):
    marker = tmp_path / "got-signal"
    code = ("import signal, sys, time\n"
            "def hit(*_):\n    open(sys.argv[1], 'w').write('hit')\n"
            "for s in (signal.SIGIO, signal.SIGURG, signal.SIGUSR1, signal.SIGTERM):\n    signal.signal(s, hit)\n"
            "print('ready', flush=True)\ntime.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(marker)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    yield proc, marker
    proc.kill()
    proc.wait()
    proc.stdout.close()


SIGNALS = {
    "f_setown_sigio": ("import fcntl, os\nr, w = os.pipe()\nfcntl.fcntl(r, fcntl.F_SETOWN, pid)\n"
                       "fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)\nos.write(w, b'x')"),
    "f_setown_group": ("import fcntl, os\nr, w = os.pipe()\nfcntl.fcntl(r, fcntl.F_SETOWN, -pid)\n"
                       "fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)\nos.write(w, b'x')"),
    "f_setsig": ("import fcntl, os\nr, w = os.pipe()\nfcntl.fcntl(r, 10, 10)\nfcntl.fcntl(r, fcntl.F_SETOWN, pid)\n"
                 "fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)\nos.write(w, b'x')"),
    "kill": "import os\nos.kill(pid, 15)",
    "killpg": "import os\nos.killpg(pid, 15)",
    "sigqueue_raw": "import ctypes\nctypes.CDLL(None).syscall(129, pid, 10, None)\nraise RuntimeError",
    "pidfd": "import os\nfd = os.pidfd_open(pid)\nimport signal\nsignal.pidfd_send_signal(fd, 15)",
}


@ALL
@pytest.mark.parametrize("how", sorted(SIGNALS))
def test_no_signal_reaches_a_host_process(raw, signal_target, how):
    proc, marker = signal_target
    raw.run(SIGNALS[how], {"pid": proc.pid})
    time.sleep(0.1)
    assert proc.poll() is None and not marker.exists()


@needs("seccomp")
@pytest.mark.parametrize("how", ["f_setown_sigio", "f_setsig", "kill"])
def test_seccomp_alone_stops_signals_without_landlock(signal_target, how):
    """What held only because of Landlock ABI >= 6 now holds with seccomp alone."""
    proc, marker = signal_target
    only("rlimits", "seccomp").run(SIGNALS[how], {"pid": proc.pid})
    time.sleep(0.1)
    assert proc.poll() is None and not marker.exists()


def test_doctor_note_matches_the_signal_rule():
    from planexec.sandbox import Sandbox

    note = Sandbox.capabilities().notes["seccomp"]
    if Sandbox.capabilities().seccomp:
        assert "F_SETOWN" in note and "towards the worker itself" in note


def test_signal_target_fixture_notices_a_signal(signal_target):
    """The fixture's target really records signals, so the tests above can fail."""
    proc, marker = signal_target
    os.kill(proc.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists()
