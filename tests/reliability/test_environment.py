"""Full and read-only homes on a small tmpfs, a home that is a file, stale git locks and a
missing git object: every finished analysis is reported, every failure is one line with exit 6."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.store import CapabilityStore
from tests.reliability.conftest import cli, cli_env, fill, record, remount, unclear

pytestmark = pytest.mark.slow
COUNT = "Count the cells"


def _report(done_stdout: str) -> dict:
    return json.loads(done_stdout)


def _reuses(home: Path) -> int:
    store = CapabilityStore(home / "capabilities", HashingEmbedder())
    try:
        return sum(c.reuse_count for c in store.list(include_archived=True))
    finally:
        store.close()


def test_full_then_read_only_home_still_runs_covered_analyses(tmpfs, tmp_path: Path, demo_images: Path) -> None:
    home = tmpfs("8m") / "home"
    outs = tmp_path / "outs"
    env = cli_env(home, outs)
    assert cli("capabilities", "list", env=env).returncode == 0  # seeds the library
    before = _reuses(home)

    filler = fill(home.parent)
    full = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    record("disk full home: covered run", unclear=int(full.returncode != 0))
    assert full.returncode == 0, full.stderr
    report = _report(full.stdout)
    assert report["status"] == "succeeded" and Path(report["output_dir"], "report.json").exists()
    assert any("not updated" in w for w in report["warnings"])
    assert "Traceback" not in full.stderr
    listed = cli("capabilities", "list", env=env)
    assert listed.returncode == 0, listed.stderr

    failed = cli("run", COUNT, "--images", str(demo_images), "--output", str(home.parent / "outs"), env=env)
    record("disk full output folder", unclear=unclear(failed))
    assert failed.returncode == 6 and not unclear(failed), failed.stderr
    assert "disk is full" in failed.stderr

    remount(home.parent, "ro")
    ro = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    record("read-only home: covered run", unclear=int(ro.returncode != 0))
    assert ro.returncode == 0, ro.stderr
    assert _report(ro.stdout)["status"] == "succeeded"
    assert cli("capabilities", "list", env=env).returncode == 0
    doctor = cli("doctor", "--json", env=env)
    assert doctor.returncode == 1 and not json.loads(doctor.stdout)["home"]["writable"]
    ro_out = cli("run", COUNT, "--images", str(demo_images), "--output", str(home.parent / "x"), env=env)
    record("read-only output folder", unclear=unclear(ro_out))
    assert ro_out.returncode == 6 and "read-only" in ro_out.stderr and not unclear(ro_out)

    remount(home.parent, "rw")
    filler.unlink()
    (home.parent / "filler2").unlink(missing_ok=True)
    again = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    assert again.returncode == 0 and not _report(again.stdout)["warnings"], again.stderr
    assert _reuses(home) > before  # after space came back, bookkeeping works again (no stale lock)


def test_fresh_home_on_a_read_only_disk_is_one_line(tmpfs, tmp_path: Path, demo_images: Path) -> None:
    mnt = tmpfs("1m")
    remount(mnt, "ro")
    env = cli_env(mnt / "home", tmp_path / "outs")
    for args in (("capabilities", "list"), ("run", COUNT, "--images", str(demo_images))):
        done = cli(*args, env=env)
        record("fresh read-only home", unclear=unclear(done))
        assert done.returncode == 6 and not unclear(done), done.stderr
        assert str(mnt) in done.stderr


def test_home_that_is_a_file_is_one_line(tmp_path: Path, demo_images: Path) -> None:
    (tmp_path / "home").write_text("not a folder")
    env = cli_env(tmp_path / "home", tmp_path / "outs")
    for args in (("capabilities", "list"), ("run", COUNT, "--images", str(demo_images))):
        done = cli(*args, env=env)
        record("home is a file", unclear=unclear(done))
        assert done.returncode == 6 and not unclear(done), done.stderr
    verbose = cli("capabilities", "list", "-v", env=env)
    assert verbose.returncode == 6 and "Traceback" in verbose.stderr


def test_stale_locks_and_a_missing_object_never_lose_the_report(tmp_path: Path, demo_images: Path) -> None:
    home, outs = tmp_path / "home", tmp_path / "outs"
    env = cli_env(home, outs)
    assert cli("capabilities", "list", env=env).returncode == 0
    git = home / "capabilities" / ".git"
    for lock in (git / "refs" / "heads" / "master.lock", git / "HEAD.lock"):
        lock.write_text("")
    stale = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    record("stale git locks", unclear=int(stale.returncode != 0))
    assert stale.returncode == 0 and not _report(stale.stdout)["warnings"], stale.stderr

    from planexec.knowledge.gitstore import GitFiles

    repo = GitFiles(home / "capabilities")
    head_tree = repo.repo.object_store[repo.head().encode()].tree.decode()
    repo.close()
    obj = git / "objects" / head_tree[:2] / head_tree[2:]
    assert obj.exists()
    obj.unlink()
    broken = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    record("missing git object of HEAD", unclear=int(broken.returncode != 0))
    assert broken.returncode == 0, broken.stderr
    report = _report(broken.stdout)
    assert report["status"] == "succeeded" and Path(report["output_dir"], "report.json").exists()
    assert "new snapshot" in broken.stderr  # the repair is said
    assert _reuses(home) > 0

    doctor = cli("doctor", "--json", env=env)
    checks = json.loads(doctor.stdout)["home"]["checks"]
    assert doctor.returncode == 0, checks  # the snapshot wrote the same tree again: the history is whole
    after = cli("run", COUNT, "--images", str(demo_images), "--json", env=env)
    assert after.returncode == 0 and not _report(after.stdout)["warnings"], after.stderr
    shutil.rmtree(outs)


def test_disk_filling_up_during_seeding_heals_when_space_returns(tmpfs, tmp_path: Path) -> None:
    mnt = tmpfs("8m")
    filler = fill(mnt)
    filler.write_bytes(b"")  # then take all but ~150 kB again: the first set-up runs out midway
    with filler.open("wb") as fh:
        fh.write(b"\0" * (8 * 2**20 - 150_000))
    env = cli_env(mnt / "home", tmp_path / "outs")
    first = cli("capabilities", "list", env=env)
    record("disk full during seeding", unclear=unclear(first))
    assert first.returncode in (0, 6) and not unclear(first), first.stderr
    subprocess.run(["mount", "-o", "remount,size=16m", str(mnt)], check=True)
    again = cli("capabilities", "list", env=env)
    assert again.returncode == 0, again.stderr
    store = CapabilityStore(mnt / "home" / "capabilities", HashingEmbedder())
    try:
        from planexec.knowledge.starters import read_capability_dir
        from planexec.knowledge.store import default_seed_dir

        seed = {c.id for c in read_capability_dir(default_seed_dir())}
        have = {c.id for c in store.list(include_archived=True)}
        record("disk full during seeding", tried=0, lost=len(seed - have))
        assert have == seed and not store.git.fsck()
    finally:
        store.close()
