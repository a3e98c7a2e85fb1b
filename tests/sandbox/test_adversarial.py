"""Hostile code against the sandbox: each test checks the effect, not only the return value.

`raw` runs with the AST policy off, so these show the kernel layers holding on their own;
`only(...)` isolates a single layer. Missing layers are skipped with their name.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from planexec.sandbox import ForkServer, Sandbox
from planexec.sandbox.forkserver import get_server

from .conftest import needs, only

LANDLOCK = needs("landlock")
SECCOMP = needs("seccomp")
ALL = needs("landlock", "seccomp")


def still_works(sb: Sandbox) -> None:
    """The host is alive (we are running) and the next run in the same sandbox works."""
    again = sb.run("results = {'ok': int(np.arange(4).sum())}")
    assert again.ok, again.error
    assert again.results == {"ok": 6}


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("TOP-SECRET-MARKER")
    return path


@pytest.fixture
def target(tmp_path):
    return tmp_path / "written.txt"


# --- files -------------------------------------------------------------------------------


@LANDLOCK
def test_numpy_fromfile_cannot_read_outside_scratch(raw, marker):
    r = raw.run("data = np.fromfile(path, dtype=np.uint8)\nresults = {'text': data.tobytes().decode()}",
                {"path": str(marker)})
    assert not r.ok and r.error_type == "PermissionError"
    assert "TOP-SECRET" not in r.stdout + r.stderr + str(r.results)


@LANDLOCK
def test_numpy_loadtxt_cannot_read_etc(raw):
    r = raw.run("results = {'rows': np.loadtxt('/etc/passwd', dtype=str, delimiter=':').tolist()}")
    assert not r.ok and "root" not in str(r.results)
    assert r.error_type == "PermissionError"


@LANDLOCK
def test_numpy_genfromtxt_cannot_read_marker(raw, marker):
    r = raw.run("results = {'x': str(np.genfromtxt(path, dtype=str))}", {"path": str(marker)})
    assert not r.ok and "TOP-SECRET" not in str(r.results) + r.stderr


@LANDLOCK
def test_numpy_save_cannot_write_outside_scratch(raw, target):
    r = raw.run("np.save(path, np.arange(3))", {"path": str(target.with_suffix(".npy"))})
    assert not r.ok
    assert not target.with_suffix(".npy").exists()


@LANDLOCK
def test_numpy_savetxt_cannot_write_home(raw, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = raw.run("np.savetxt(path, np.arange(3))", {"path": str(home / "x.txt")})
    assert not r.ok and not (home / "x.txt").exists()


@LANDLOCK
def test_skimage_imsave_cannot_write_outside(raw, target):
    out = target.with_suffix(".png")
    r = raw.run("import skimage.io\nskimage.io.imsave(path, np.zeros((4, 4), np.uint8))",
                {"path": str(out)})
    assert not r.ok and not out.exists()


@LANDLOCK
def test_savefig_cannot_write_outside(raw, target):
    out = target.with_suffix(".png")
    r = raw.run("fig, ax = plt.subplots()\nfig.savefig(path)", {"path": str(out)})
    assert not r.ok and not out.exists()


def test_policy_blocks_open_before_running(full, target):
    r = full.run(f"open({str(target)!r}, 'w').write('x')")
    assert r.error_type == "PolicyViolation" and r.line == 1
    assert r.layers == ("policy",)  # no worker was started
    assert not target.exists()


@LANDLOCK
def test_landlock_alone_blocks_open_write(target):
    r = only("landlock").run("open(path, 'w').write('x')", {"path": str(target)})
    assert r.error_type == "PermissionError" and not target.exists()


@LANDLOCK
def test_memmap_cannot_map_marker(raw, marker):
    r = raw.run("m = np.memmap(path, dtype=np.uint8, mode='r')\nresults = {'b': bytes(m).decode()}",
                {"path": str(marker)})
    assert not r.ok and "TOP-SECRET" not in str(r.results)


@LANDLOCK
def test_symlink_to_outside_is_refused(raw, marker):
    r = raw.run("import os\nos.symlink(path, 'link')\nresults = {'t': open('link').read()}",
                {"path": str(marker)})
    assert not r.ok and "TOP-SECRET" not in str(r.results)


@LANDLOCK
def test_hardlink_of_outside_file_is_refused(raw, marker):
    r = raw.run("import os\nos.link(path, 'hard')\nresults = {'t': open('hard').read()}",
                {"path": str(marker)})
    assert not r.ok and "TOP-SECRET" not in str(r.results)


@LANDLOCK
def test_cannot_list_tmp(raw, marker):
    r = raw.run("import os\nresults = {'names': os.listdir(d)}", {"d": str(marker.parent)})
    assert not r.ok and "secret.txt" not in str(r.results)


def test_scratch_dir_is_writable(raw):
    r = raw.run("np.save('mine.npy', np.arange(3))\nresults = {'back': np.load('mine.npy').tolist()}")
    assert r.ok and r.results == {"back": [0, 1, 2]}


# --- network -----------------------------------------------------------------------------


@pytest.fixture
def listener():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.3)
    yield srv
    srv.close()


def _no_connection(srv: socket.socket) -> bool:
    try:
        conn, _ = srv.accept()
    except TimeoutError:
        return True
    conn.close()
    return False


@ALL
def test_socket_connect_never_arrives(raw, listener):
    port = listener.getsockname()[1]
    r = raw.run("import socket\ns = socket.create_connection(('127.0.0.1', port), timeout=1)",
                {"port": port})
    assert not r.ok and _no_connection(listener)


@ALL
def test_urllib_never_arrives(raw, listener):
    port = listener.getsockname()[1]
    r = raw.run("import urllib.request\nurllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=1)",
                {"port": port})
    assert not r.ok and _no_connection(listener)


@ALL
def test_udp_dns_style_packet_never_arrives(raw):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.3)
    try:
        r = raw.run("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                    "s.sendto(b'query', ('127.0.0.1', port))", {"port": udp.getsockname()[1]})
        assert not r.ok
        with pytest.raises(TimeoutError):
            udp.recvfrom(100)
    finally:
        udp.close()


@ALL
def test_dns_resolution_fails(raw):
    r = raw.run("import socket\nresults = {'a': str(socket.getaddrinfo('example.com', 80))}")
    assert not r.ok and "a" not in r.results


@SECCOMP
def test_seccomp_alone_blocks_sockets(listener):
    port = listener.getsockname()[1]
    r = only("seccomp").run("import socket\nsocket.create_connection(('127.0.0.1', port), timeout=1)",
                            {"port": port})
    assert r.error_type == "PermissionError" and _no_connection(listener)


@LANDLOCK
def test_landlock_alone_blocks_tcp(listener):
    if Sandbox.capabilities().landlock_abi < 4:
        pytest.skip("Landlock ABI < 4 has no TCP control")
    port = listener.getsockname()[1]
    r = only("landlock").run("import socket\nsocket.create_connection(('127.0.0.1', port), timeout=1)",
                             {"port": port})
    assert not r.ok and _no_connection(listener)


def test_policy_blocks_socket_import(full):
    r = full.run("import socket")
    assert r.error_type == "PolicyViolation" and "socket" in r.error


# --- processes ---------------------------------------------------------------------------


@SECCOMP
def test_seccomp_alone_blocks_os_system(target):
    r = only("seccomp").run(f"import os\nresults = {{'rc': os.system('touch {target}')}}")
    assert not target.exists()
    assert r.results.get("rc", 1) != 0 or not r.ok


@SECCOMP
def test_subprocess_blocked(raw, target):
    r = raw.run(f"import subprocess\nsubprocess.run(['touch', {str(target)!r}])")
    assert not r.ok and not target.exists()


@SECCOMP
def test_fork_bomb_contained(raw):
    r = raw.run("import os\nfor _ in range(50):\n    os.fork()")
    assert r.error_type == "PermissionError"
    still_works(raw)


@SECCOMP
def test_multiprocessing_blocked(raw, target):
    r = raw.run("import multiprocessing, pathlib\n"
                "p = multiprocessing.Process(target=pathlib.Path(path).touch)\np.start()\np.join()",
                {"path": str(target)})
    assert not r.ok and not target.exists()


@SECCOMP
def test_execv_blocked(raw, target):
    r = raw.run(f"import os\nos.execv('/bin/sh', ['sh', '-c', 'touch {target}'])")
    assert r.error_type == "PermissionError" and not target.exists()


def test_policy_blocks_subprocess_import(full):
    r = full.run("import subprocess\nsubprocess.run(['ls'])")
    assert r.error_type == "PolicyViolation" and r.line == 1


# --- resources ---------------------------------------------------------------------------


def test_huge_array_is_memory_error(full):
    r = full.run("x = np.ones(10**11)")
    assert r.error_type == "MemoryError" and "memory_mb" in r.error
    still_works(full)


def test_huge_string_is_memory_error(full):
    r = full.run("s = 'x' * 10**11")
    assert r.error_type == "MemoryError"
    still_works(full)


def test_growing_memory_is_stopped():
    sb = Sandbox(timeout=10, memory_mb=256)
    r = sb.run("keep = []\nwhile True:\n    keep.append(np.ones(10**6))")
    assert r.error_type == "MemoryError"
    still_works(sb)


def test_infinite_loop_times_out(full):
    r = full.run("while True:\n    pass", timeout=1)
    assert r.error_type == "Timeout" and r.duration < 4
    still_works(full)


def test_sleep_past_timeout(full):
    r = full.run("import time\ntime.sleep(30)", timeout=0.5)
    assert r.error_type == "Timeout" and r.duration < 3


def test_deep_recursion(full):
    r = full.run("def f(n):\n    return f(n + 1)\nf(0)")
    assert r.error_type == "RecursionError"
    still_works(full)


def test_raised_recursion_limit_crash_is_contained(raw):
    r = raw.run("import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return f(n + 1)\nf(0)", timeout=2)
    assert not r.ok
    still_works(raw)


def test_thread_flood_is_bounded(raw):
    r = raw.run("import threading, time\nts = []\ntry:\n"
                "    for i in range(20000):\n"
                "        t = threading.Thread(target=time.sleep, args=(3,), daemon=True)\n"
                "        t.start(); ts.append(t)\n"
                "except Exception as e:\n    results = {'err': type(e).__name__, 'n': len(ts)}")
    assert r.ok and r.results["err"] == "RuntimeError" and r.results["n"] < 20000
    still_works(raw)


def test_file_size_limit():
    sb = Sandbox(check_policy=False, file_mb=1, timeout=5)
    r = sb.run("import os\ntry:\n    np.zeros(10**7).tofile('big.bin')\nexcept OSError as e:\n"
               "    results = {'errno': e.errno, 'size': os.path.getsize('big.bin')}")
    assert r.ok and "size" in r.results and r.results["size"] <= 1 << 20  # write stopped at the limit


def test_open_file_limit(raw):
    r = raw.run("fs = [open(f'f{i}', 'w') for i in range(1000)]")
    assert r.error_type == "OSError" and "Too many open files" in r.error


# --- introspection -----------------------------------------------------------------------


def test_policy_blocks_subclasses_walk(full):
    r = full.run("cls = ().__class__.__base__.__subclasses__()")
    assert r.error_type == "PolicyViolation" and "__class__" in r.error


def test_policy_blocks_function_globals(full):
    r = full.run("def f():\n    pass\ng = f.__globals__")
    assert r.error_type == "PolicyViolation" and r.line == 3


def test_policy_blocks_generator_frames(full):
    r = full.run("def g():\n    yield 1\nx = g()\nfr = x.gi_frame.f_back")
    assert r.error_type == "PolicyViolation" and "gi_frame" in r.error


def test_policy_blocks_module_private_attribute(full):
    r = full.run("import random\nrandom._os.system('id')")
    assert r.error_type == "PolicyViolation" and "_os" in r.error


def test_policy_blocks_getattr_dunder(full):
    r = full.run("c = getattr((), '__class__')")
    assert r.error_type == "PolicyViolation"


def test_policy_blocks_format_string_attribute(full):
    r = full.run("s = '{0.__class__.__init__}'.format(1)")
    assert r.error_type == "PolicyViolation"


@ALL
def test_subclasses_walk_to_popen_is_contained(raw, target):
    code = ("popen = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen']\n"
            "import subprocess\npopen = popen or [subprocess.Popen]\n"
            f"popen[0](['touch', {str(target)!r}]).wait()")
    r = raw.run(code)
    assert not r.ok and not target.exists()


@ALL
def test_random_os_escape_is_contained(raw, target):
    r = raw.run(f"import random\nresults = {{'rc': random._os.system('touch {target}')}}")
    assert not target.exists()
    assert r.results.get("rc", -1) != 0 or not r.ok


@ALL
def test_frame_globals_escape_is_contained(raw, target):
    r = raw.run("def g():\n    yield 1\nb = g().gi_frame.f_globals['__builtins__']\n"
                f"b['__import__']('os').system('touch {target}')")
    assert not target.exists() and r is not None


# --- import tricks -----------------------------------------------------------------------


def test_policy_blocks_dunder_import(full):
    r = full.run("os = __import__('os')")
    assert r.error_type == "PolicyViolation" and "__import__" in r.error


def test_policy_blocks_importlib(full):
    r = full.run("import importlib\nimportlib.import_module('os')")
    assert r.error_type == "PolicyViolation"


def test_policy_blocks_sys_modules(full):
    r = full.run("import numpy\nm = sys.modules['os']")
    assert r.error_type == "PolicyViolation" and "sys" in r.error


def test_policy_blocks_numpy_ctypeslib(full):
    r = full.run("lib = np.ctypeslib.ctypes.CDLL(None)")
    assert r.error_type == "PolicyViolation" and "ctypeslib" in r.error


@ALL
def test_importlib_escape_is_contained(raw, target):
    r = raw.run(f"import importlib\nimportlib.import_module('subprocess').run(['touch', {str(target)!r}])")
    assert not r.ok and not target.exists()


# --- native code -------------------------------------------------------------------------


def test_policy_blocks_ctypes(full):
    r = full.run("import ctypes\nctypes.CDLL(None).system(b'id')")
    assert r.error_type == "PolicyViolation"


@ALL
def test_ctypes_libc_system_is_contained(raw, target):
    r = raw.run(f"import ctypes\nresults = {{'rc': ctypes.CDLL(None).system(b'touch {target}')}}")
    assert not target.exists()
    assert r.results.get("rc", -1) != 0 or not r.ok


def test_segfault_is_a_result_and_pool_recovers(raw):
    r = raw.run("import ctypes\nctypes.string_at(0)")
    assert r.error_type == "WorkerCrashed" and "SIGSEGV" in r.error
    still_works(raw)


# --- signals -----------------------------------------------------------------------------


def test_ignoring_sigalrm_and_sigterm_does_not_escape_timeout(raw):
    r = raw.run("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass", timeout=1)
    assert r.error_type == "Timeout" and r.duration < 4
    still_works(raw)


@ALL
def test_cannot_kill_the_fork_server(raw):
    server = get_server()
    r = raw.run("import os\nos.kill(os.getppid(), 9)")
    assert r.error_type == "PermissionError"
    assert server.running()
    still_works(raw)


@ALL
def test_cannot_kill_other_processes(raw):
    victim = subprocess.Popen(["sleep", "30"])
    try:
        r = raw.run("import os\nos.kill(pid, 9)", {"pid": victim.pid})
        assert r.error_type == "PermissionError"
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


@ALL
def test_cannot_signal_everything(raw):
    r = raw.run("import os\nos.kill(-1, 0)")
    assert r.error_type == "PermissionError"
    assert os.getpid() > 0


@LANDLOCK
def test_landlock_alone_scopes_signals():
    if Sandbox.capabilities().landlock_abi < 6:
        pytest.skip("Landlock ABI < 6 does not scope signals")
    victim = subprocess.Popen(["sleep", "30"])
    try:
        r = only("landlock").run("import os\nos.kill(pid, 9)", {"pid": victim.pid})
        assert r.error_type == "PermissionError" and victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


# --- environment secrets -----------------------------------------------------------------


@pytest.mark.slow  # starts its own fork server (several seconds)
def test_environment_is_scrubbed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-MARKER-KEY")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-MARKER-TOKEN")
    server = ForkServer()  # started now, with the secrets in our environment
    try:
        r = Sandbox(check_policy=False, server=server).run(
            "import os\nresults = {'env': dict(os.environ)}")
    finally:
        server.close()
    assert r.ok
    env = r.results["env"]
    assert "MARKER" not in str(env)
    assert not [k for k in env if k.endswith(("_KEY", "_TOKEN"))]


@LANDLOCK
def test_proc_self_environ_unreadable(raw):
    r = raw.run("results = {'e': open('/proc/self/environ', 'rb').read().decode()}")
    assert r.error_type == "PermissionError"


@LANDLOCK
def test_proc_1_environ_unreadable(raw):
    r = raw.run("results = {'e': open('/proc/1/environ', 'rb').read().decode()}")
    assert r.error_type == "PermissionError"


@LANDLOCK
def test_parent_environ_unreadable(raw, monkeypatch):
    r = raw.run("results = {'e': open(f'/proc/{pid}/environ', 'rb').read().decode()}",
                {"pid": os.getpid()})
    # hidden by Landlock, and absent from the worker's own /proc in its PID namespace
    assert r.error_type in ("PermissionError", "FileNotFoundError") and "e" not in r.results


# --- raising limits ----------------------------------------------------------------------


def test_setrlimit_cannot_raise_memory(raw):
    r = raw.run("import resource\ntry:\n"
                "    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)\n"
                "    raised = True\nexcept (OSError, ValueError):\n    raised = False\n"
                "try:\n    np.ones(10**10)\n    big = True\nexcept MemoryError:\n    big = False\n"
                "results = {'raised': raised, 'big': big}")
    assert r.ok and r.results == {"raised": False, "big": False}


def test_capabilities_layer_alone_blocks_raising_hard_limits():
    sb = only("rlimits", "capabilities")
    r = sb.run("import resource\nsoft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
               "resource.setrlimit(resource.RLIMIT_NOFILE, (hard * 2, hard * 2))")
    assert r.error_type in ("ValueError", "PermissionError")


# --- output floods and hostile results ---------------------------------------------------


def test_stdout_flood_is_truncated(full):
    r = full.run("for i in range(200000):\n    print('flood line', i)")
    assert r.ok and len(r.stdout) < 25_000 and "output truncated" in r.stdout


def test_native_output_flood_is_truncated(raw):
    r = raw.run("import os\nos.write(1, b'y' * 5_000_000)")
    assert r.ok and len(r.stderr) < 25_000 and "truncated" in r.stderr


def test_oversized_result_message_is_refused(full):
    r = full.run("results = {'s': 'x' * (70 * 2**20)}")
    assert r.error_type == "OutputTooLarge"
    still_works(full)


def test_reduce_payload_in_results_never_reaches_host(raw, target):
    r = raw.run("class P:\n    def __reduce__(self):\n"
                f"        return (open, ({str(target)!r}, 'w'))\nresults = {{'p': P()}}")
    assert r.error_type == "SerializationError" and not target.exists()


def test_del_time_bomb_never_reaches_host(raw, target):
    r = raw.run("class Bomb:\n    def __del__(self):\n"
                f"        open({str(target)!r}, 'w')\nresults = {{'b': Bomb()}}")
    assert r.error_type == "SerializationError"
    assert not target.exists()


def test_forged_pickled_array_is_refused_by_host(raw, target):
    code = (
        "import sys\nclass P:\n    def __reduce__(self):\n"
        f"        return (open, ({str(target)!r}, 'w'))\n"
        "arr = np.empty(1, dtype=object)\narr[0] = P()\n"
        "np.save('evil.npy', arr, allow_pickle=True)\n"
        "w = sys.modules['planexec.sandbox.wire']\n"
        "w.encode = lambda value, save, where='v', depth=0: {'x': {'$ndarray': 'evil.npy'}}"
    )
    r = raw.run(code)
    assert r.error_type == "OutputTooLarge" and "refused" in r.error
    assert not target.exists()


def test_forged_path_traversal_is_refused(raw):
    code = ("import sys\nw = sys.modules['planexec.sandbox.wire']\n"
            "w.encode = lambda value, save, where='v', depth=0: {'x': {'$ndarray': '../../etc/passwd'}}")
    r = raw.run(code)
    assert not r.ok and "refus" in r.error
    assert sys.modules["planexec.sandbox.wire"].encode.__name__ == "encode"
