"""Escape classes 1 and 8: metadata of host files, changed or read by a worker.

Landlock does not cover chmod/chown/utimes/xattrs or stat(); the worker's own uid (root
hosts), the seccomp allow-list and the PID namespace do. Each test checks the host file's
mode, owner, times, xattrs or bytes afterwards, or that a host fact never reached the results.
"""

from __future__ import annotations

import os
import stat

import pytest

from planexec.sandbox import Sandbox

from .conftest import CAPS, needs, only

ALL = needs("identity", "seccomp", "landlock")


@pytest.fixture
def host_file(tmp_path):
    folder = tmp_path / "host"
    folder.mkdir()
    path = folder / "data.txt"
    path.write_text("HOST-BYTES")
    os.chmod(path, 0o644)
    return path


def snapshot(path) -> tuple:
    info = os.lstat(path)
    xattrs = sorted(os.listxattr(path)) if hasattr(os, "listxattr") else []
    return (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_mtime_ns,
            info.st_ctime_ns, xattrs, path.read_bytes() if path.is_file() else None)


ATTACKS = {
    "chmod_setuid": "os.chmod(p, 0o4777)",
    "chmod_zero": "os.chmod(p, 0)",
    "chmod_follow_false": "os.chmod(p, 0o777, follow_symlinks=False)",
    "chown_root_to_user": "os.chown(p, 1000, 1000)",
    "chown_group_only": "os.chown(p, -1, 1000)",
    "lchown": "os.lchown(p, 1000, 1000)",
    "utime_epoch": "os.utime(p, (0, 0))",
    "utime_ns": "os.utime(p, ns=(1, 1))",
    "utime_now": "os.utime(p)",
    "setxattr_user": "os.setxattr(p, 'user.planted', b'1')",
    "setxattr_trusted": "os.setxattr(p, 'trusted.planted', b'1')",
    "setxattr_security": "os.setxattr(p, 'security.planted', b'1')",
    "truncate": "os.truncate(p, 0)",
    "append": "open(p, 'a').write('X')",
    "rename": "os.rename(p, p + '.moved')",
    "unlink": "os.unlink(p)",
    "chmod_parent": "os.chmod(os.path.dirname(p), 0o777)",
    "chown_parent": "os.chown(os.path.dirname(p), 1000, 1000)",
    "utime_parent": "os.utime(os.path.dirname(p), (0, 0))",
    "setxattr_parent": "os.setxattr(os.path.dirname(p), 'user.planted', b'1')",
}


@ALL
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_host_file_metadata_unchanged(raw, host_file, attack):
    before, parent = snapshot(host_file), snapshot(host_file.parent)[:5]
    r = raw.run(f"import os\n{ATTACKS[attack]}", {"p": str(host_file)})
    assert not r.ok
    assert host_file.exists() and snapshot(host_file) == before
    assert snapshot(host_file.parent)[:4] == parent[:4]


@needs("identity")
@pytest.mark.parametrize("attack", ["chmod_setuid", "chown_root_to_user", "utime_epoch",
                                    "setxattr_user", "chmod_parent"])
def test_identity_alone_keeps_host_metadata(host_file, attack):
    """Without seccomp and Landlock, the worker's own uid still cannot touch root's files."""
    before = snapshot(host_file)
    r = only("rlimits", "identity", "namespaces").run(f"import os\n{ATTACKS[attack]}",
                                                       {"p": str(host_file)})
    assert not r.ok and r.error_type == "PermissionError"
    assert snapshot(host_file) == before


@needs("seccomp")
@pytest.mark.parametrize("attack", ["chmod_setuid", "chown_group_only", "utime_now",
                                    "setxattr_user"])
def test_seccomp_alone_keeps_host_metadata(host_file, attack):
    """Without the uid change (a non-root host), the allow-list still refuses the calls."""
    before = snapshot(host_file)
    r = only("rlimits", "seccomp").run(f"import os\n{ATTACKS[attack]}", {"p": str(host_file)})
    assert not r.ok
    assert snapshot(host_file) == before


@ALL
def test_chmod_of_scratch_parent_does_not_break_later_runs(raw):
    r = raw.run("import os\nos.chmod('..', 0)\nos.chmod('.', 0)")
    assert not r.ok
    again = raw.run("import os\nresults = {'here': os.getcwd(), 'ok': int(np.arange(3).sum())}")
    assert again.ok and again.results["ok"] == 3


@ALL
def test_xattr_on_scratch_does_not_reach_next_run(raw):
    raw.run("import os\ntry:\n    os.setxattr('.', 'user.carry', b'1')\nexcept OSError:\n    pass")
    r = raw.run("import os\ntry:\n    v = os.getxattr('.', 'user.carry').decode()\nexcept OSError as e:\n"
                "    v = type(e).__name__\nresults = {'v': v}")
    assert r.ok and r.results["v"] != "1"


@ALL
def test_worker_runs_as_unprivileged_uid(raw):
    r = raw.run("import os\nresults = {'ids': list(os.getresuid()) + list(os.getresgid()), "
                "'groups': os.getgroups()}")
    assert r.ok and 0 not in r.results["ids"] and r.results["groups"] == []
    assert len(set(r.results["ids"])) == 1


@ALL
def test_concurrent_workers_have_distinct_uids(raw):
    with raw.session() as a, raw.session() as b:
        ua = a.run("import os\nresults = {'u': os.getuid()}").results["u"]
        ub = b.run("import os\nresults = {'u': os.getuid()}").results["u"]
    assert ua != ub


# --- class 8: metadata leaks ----------------------------------------------------------------


@pytest.fixture
def private_dir(tmp_path):
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    (folder / "secret-name-4711.txt").write_text("x" * 4711)
    os.chmod(folder, 0o700)
    return folder


LEAKS = {
    "stat_size": "results = {'v': os.stat(os.path.join(d, 'secret-name-4711.txt')).st_size}",
    "lstat_size": "results = {'v': os.lstat(os.path.join(d, 'secret-name-4711.txt')).st_size}",
    "exists": "results = {'v': 4711 if os.path.exists(os.path.join(d, 'secret-name-4711.txt')) else 0}",
    "listdir": "results = {'v': os.listdir(d)}",
    "scandir": "results = {'v': [e.name for e in os.scandir(d)]}",
    "access": "results = {'v': 4711 if os.access(os.path.join(d, 'secret-name-4711.txt'), os.F_OK) else 0}",
    "glob_np": "results = {'v': str(np.loadtxt(os.path.join(d, 'secret-name-4711.txt')))}",
}


@ALL
@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_private_folder_facts_do_not_reach_results(raw, private_dir, leak):
    r = raw.run(f"import os\n{LEAKS[leak]}", {"d": str(private_dir)})
    text = repr(r.results) + r.stdout + r.stderr
    assert "4711" not in text and "secret-name" not in text


@ALL
def test_getpriority_sees_no_host_process(raw):
    code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nseen = []\n"
            "for pid in list(range(1, 400)) + [host, server]:\n"
            "    if libc.getpriority(0, pid) != -1 or ctypes.get_errno() == 0:\n"
            "        seen.append(pid)\n"
            "    try:\n        os.kill(pid, 0)\n        seen.append(-pid)\n    except OSError:\n        pass\n"
            "results = {'seen': seen}")
    from planexec.sandbox.forkserver import get_server

    server = get_server().pid or 0
    r = raw.run(code, {"host": os.getpid(), "server": server})
    seen = set(r.results.get("seen", []))
    for pid in (os.getpid(), server, os.getppid()):
        assert pid not in seen and -pid not in seen


@ALL
def test_proc_lists_only_the_worker(raw):
    r = raw.run("import os\ntry:\n    v = sorted(x for x in os.listdir('/proc') if x.isdigit())\n"
                "except OSError as e:\n    v = [type(e).__name__]\nresults = {'v': v}")
    assert str(os.getpid()) not in r.results["v"]


@ALL
def test_inotify_on_host_folder_sees_nothing(raw, tmp_path):
    watched = tmp_path / "watched"
    watched.mkdir()
    with raw.session() as s:
        s.run("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = libc.inotify_init1(0o4000)\n"
              "wd = libc.inotify_add_watch(fd, d.encode(), 0xfff) if fd >= 0 else -1\nresults = {}",
              timeout=5)
        s.update({"d": str(watched)})
        (watched / "created-by-host-99.txt").write_text("x")
        r = s.run("import os\ntry:\n    ev = os.read(fd, 4096).decode('latin-1') if fd >= 0 else ''\n"
                  "except OSError as e:\n    ev = type(e).__name__\nresults = {'ev': ev, 'fd': fd}")
    assert "created-by-host-99" not in repr(r.results)


@ALL
def test_dnotify_fcntl_is_denied(raw, tmp_path):
    r = raw.run("import fcntl, os\nfd = os.open('.', os.O_RDONLY)\nfcntl.fcntl(fd, fcntl.F_NOTIFY, 0x3f)")
    assert not r.ok and r.error_type == "PermissionError"


def test_refusal_names_what_is_missing():
    from planexec.sandbox.confine import Capabilities

    weak = Capabilities(0, False, True, False, {"landlock": "NOT available: old kernel",
                                                "seccomp": "NOT available: no libseccomp"})
    text = weak.refusal or ""
    assert "landlock" in text and "seccomp" in text and "old kernel" in text
    assert "allow_weaker" in text and "PLANEXEC_SANDBOX_ALLOW_WEAKER" in text
    assert CAPS.refusal is None or "refusing" in CAPS.refusal


def test_explicit_layers_are_an_opt_out():
    assert Sandbox(layers=("rlimits",), check_policy=False).refusal is None
