"""A two-node Ray cluster on this machine (a head and a second node, each with its own
PLANEXEC_HOME) sharing one capability library through a bare git remote: a capability the
scripted model generates on one node is reused, without a model call, on the other."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from planexec.batch import BatchJob, discover, run_batch
from planexec.knowledge.embedder import get_embedder
from planexec.knowledge.store import CapabilityStore
from planexec.knowledge.sync import LibrarySync
from tests.calcium import scripted_skewness
from tests.conftest import REPO

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    address: str
    homes: dict[str, Path]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"Ray head did not open port {port}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """`ray start --head` plus `ray start --address` (1 CPU each, small object stores), killed by process group."""
    import cloudpickle

    base = tmp_path_factory.mktemp("cluster")
    homes = {"head": base / "home-head", "node": base / "home-node"}
    port = _free_port()
    temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # keeps `ray_current_cluster` out of /tmp/ray
    common = [sys.executable, "-m", "ray.scripts.scripts", "start", "--block", "--num-cpus=1",
              "--object-store-memory=80000000", "--disable-usage-stats", "--node-ip-address=127.0.0.1"]
    env = dict(os.environ, RAY_AUTH_MODE="disabled", HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    saved_auth = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"  # loopback test cluster: no token files
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for name, args in (("head", ["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"]),
                           ("node", [f"--address=127.0.0.1:{port}"])):
            with (base / f"{name}.log").open("wb") as log:
                procs.append(subprocess.Popen([*common, *args], env=dict(env, PLANEXEC_HOME=str(homes[name])),
                                              start_new_session=True, stdout=log, stderr=subprocess.STDOUT))
            if name == "head":
                _wait_port(port)
        if ray.is_initialized():
            ray.shutdown()
        ray.init(address=f"127.0.0.1:{port}", log_to_driver=False, configure_logging=False)
        deadline = time.monotonic() + 60
        while sum(n["Alive"] for n in ray.nodes()) < 2:
            assert time.monotonic() < deadline, "the second node did not join"
            time.sleep(0.3)
        cloudpickle.register_pickle_by_value(scripted_skewness)
        yield Cluster(f"127.0.0.1:{port}", homes)
    finally:
        cloudpickle.unregister_pickle_by_value(scripted_skewness)
        ray.shutdown()
        for p in procs:  # the processes each `ray start` began share its process group
            os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait(timeout=30)
        shutil.rmtree(temp, ignore_errors=True)
        if saved_auth is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved_auth


def test_capability_generated_on_one_node_is_reused_on_the_other(cluster: Cluster, demo_sessions: Path,
                                                                  tmp_path: Path) -> None:
    remote = str(tmp_path / "library.git")  # shared storage: both nodes see this path
    recordings = discover(str(demo_sessions / "s[123]"))
    job = BatchJob(scripted_skewness.REQUEST, tmp_path / "batch", library_remote=remote, warmup=1,
                   llm_factory=scripted_skewness.scripted_llm)
    result = run_batch(job, recordings, address=cluster.address)

    rows = result.rows
    assert all(r.status == "succeeded" for r in rows), [(r.name, r.error) for r in rows]
    first, rest = rows[0], rows[1:]
    (generated,) = first.generated
    assert first.llm_calls == 3  # plan, code, answer: the model wrote the new step
    assert all(r.llm_calls == 0 and generated in r.reused and not r.generated for r in rest)
    assert len({r.node for r in rows}) == 2, "both nodes ran recordings"
    assert any(r.node != first.node for r in rest), "a node that did not generate the capability reused it"

    # every node's own library has it, and the remote has the usage of both reuses merged
    for home in cluster.homes.values():
        assert (home / "capabilities" / "capabilities" / f"{generated}.py").is_file()
    fresh = tmp_path / "fresh"
    assert LibrarySync(fresh, remote).pull().fetched
    store = CapabilityStore(fresh, get_embedder("none"))
    try:
        assert store.stats(generated)["runs"] == 2
        assert store.stats("compute_dff")["runs"] == 3  # a reused builtin counted once per recording
    finally:
        store.close()
    assert all(r.sync_seconds > 0 for r in rows)
