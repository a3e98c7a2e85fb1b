"""SIGKILL at random moments: during the first set-up of the library (seeding), inside the
usage commit, and anywhere in a real `planexec run` followed by `planexec resume`.
Nothing committed is lost, starters are complete after the next open, reuse is counted once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planexec.knowledge.capfiles import CAP_DIR
from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import CapabilityStore, default_seed_dir
from tests.reliability.conftest import PLANEXEC, cli, cli_env, record

pytestmark = pytest.mark.slow

SEEDER = """
import sys
from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.store import CapabilityStore
print("ready", flush=True)
store = CapabilityStore(sys.argv[1], HashingEmbedder())
len(store)
print("done", flush=True)
"""

USER = """
import sys
from planexec.knowledge.embedder import HashingEmbedder
from planexec.knowledge.store import CapabilityStore
store = CapabilityStore(sys.argv[1], HashingEmbedder())
ids = sorted(c.id for c in store.list())[:3]
print("ready", flush=True)
for i in range(1000):
    store.record_uses([(cap, True, 0.01) for cap in ids], token=f"run {sys.argv[2]}-{i}")
    print(i, flush=True)
"""


def _child(script: str, path: Path, tag: str = "") -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", script, str(path), tag], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _kill(proc: subprocess.Popen[str]) -> list[str]:
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    return out.split()


def test_killed_seeding_leaves_a_complete_library_at_the_next_open(tmp_path: Path) -> None:
    seed = {c.id for c in read_capability_dir(default_seed_dir())}
    started = time.perf_counter()
    timing = _child(SEEDER, tmp_path / "timing")
    timing.communicate(timeout=120)
    window = time.perf_counter() - started
    rng = random.Random(16)
    for trial in range(10):
        path = tmp_path / f"s{trial}"
        proc = _child(SEEDER, path)
        time.sleep(rng.uniform(0, window))
        _kill(proc)
        store = CapabilityStore(path, HashingEmbedder())
        try:
            have = {c.id for c in store.list(include_archived=True)}
            fsck = store.git.fsck()
        finally:
            store.close()
        record("SIGKILL during seeding", lost=len(seed - have))
        assert have == seed and not fsck


def test_killed_usage_commits_lose_nothing_acknowledged_and_count_once(tmp_path: Path) -> None:
    path = tmp_path / "store"
    CapabilityStore(path, HashingEmbedder()).close()
    rng = random.Random(61)
    acknowledged = 0
    for trial in range(8):
        proc = _child(USER, path, f"t{trial}")
        time.sleep(rng.uniform(0.05, 0.6))
        printed = _kill(proc)
        acknowledged += len(printed)
        store = CapabilityStore(path, HashingEmbedder())
        try:
            ids = sorted(c.id for c in store.list())[:3]
            counts = [store.load(i).reuse_count for i in ids]
            commits = [c.message for c in store.git.log() if c.message.startswith(("Reuse", "Recover"))]
            committed = json.loads(store.git.read(f"{CAP_DIR}/{ids[0]}.json") or b"{}")["reuse_count"]
        finally:
            store.close()
        tokens = [m.rsplit("[", 1)[-1] for m in commits if m.startswith("Reuse")]
        lost = max(0, acknowledged - counts[0])
        record("SIGKILL inside the usage commit", lost=lost)
        assert counts[0] == counts[1] == counts[2] == committed == len(commits) >= acknowledged
        assert len(tokens) == len(set(tokens)) or acknowledged == 0


def test_killed_runs_resume_and_report_with_reuse_counted_once(tmp_path: Path, demo_images: Path) -> None:
    env = cli_env(tmp_path / "home", tmp_path / "outs")
    assert cli("capabilities", "list", env=env).returncode == 0
    started = time.perf_counter()
    first = cli("run", "Count the cells", "--images", str(demo_images), "--json", env=env)
    assert first.returncode == 0, first.stderr
    duration = time.perf_counter() - started
    rng = random.Random(20)
    for _trial in range(3):
        before = _total_reuse(tmp_path / "home")
        runs_before = set((tmp_path / "outs").iterdir())
        proc = subprocess.Popen([PLANEXEC, "run", "Count the cells", "--images", str(demo_images), "--json"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
        time.sleep(rng.uniform(0.5, duration))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        new = sorted(set((tmp_path / "outs").iterdir()) - runs_before)
        report = None
        # reports are written before the end-of-run bookkeeping, so only the journal's "finished" says done
        if new and (new[0] / "checkpoint.jsonl").exists() and not _finished(new[0] / "checkpoint.jsonl"):
            done = cli("resume", str(new[0]), "--json", env=env)
            unclear = int(done.returncode not in (0, 2) or "Traceback" in done.stderr)
            if done.returncode == 0:
                report = json.loads(done.stdout)
        elif new and (new[0] / "report.json").exists():
            report = json.loads((new[0] / "report.json").read_text())
            unclear = 0
        else:
            unclear = 0  # killed before the run had a checkpoint: nothing to resume, nothing committed
        uses = 0 if report is None else sum(
            a["tool"] == "run_capability" for s in report["steps"] for a in s["attempts"])
        after = _total_reuse(tmp_path / "home")
        record("SIGKILL of a run, then resume", unclear=unclear)
        assert unclear == 0
        if report is not None:
            assert report["status"] == "succeeded"
            assert after - before == uses, "reuse counted twice (or not at all) after the resume"

    # A kill just after the end-of-run usage commit, before the checkpoint said "finished":
    run_dir = Path(json.loads(first.stdout)["output_dir"])
    journal = run_dir / "checkpoint.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(line for line in lines if not json.loads(line).get("finished")) + "\n")
    before = _total_reuse(tmp_path / "home")
    resumed = cli("resume", str(run_dir), "--json", env=env)
    assert resumed.returncode == 0, resumed.stderr
    record("SIGKILL after the end-of-run commit, then resume")
    assert _total_reuse(tmp_path / "home") == before, "the resumed run counted its reuse a second time"


def _finished(journal: Path) -> bool:
    lines = [line for line in journal.read_text().splitlines() if line.strip()]
    try:
        return bool(lines) and bool(json.loads(lines[-1]).get("finished"))
    except json.JSONDecodeError:  # killed mid-line: the last whole line decides on resume
        return False


def _total_reuse(home: Path) -> int:
    store = CapabilityStore(home / "capabilities", HashingEmbedder())
    try:
        return sum(c.reuse_count for c in store.list(include_archived=True))
    finally:
        store.close()
