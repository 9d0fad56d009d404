"""A real Ray head node for the tests of each module of this folder that ask for ``cluster``
(one per module, so each module ends with Ray shut down: the docs snippets run after them
start Ray themselves)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def cluster():
    """A head node on this machine (2 CPUs, no dashboard), this process connected to it by
    address. At the end of the test module it is shut down, and every process it started (the
    GCS, the raylet and its workers) must be gone within 30 s."""
    from .ray_required import import_ray

    ray = import_ray()
    import psutil  # a dependency of ray
    from ray.cluster_utils import Cluster

    head = Cluster(initialize_head=True, connect=False,
                   head_node_args={"num_cpus": 2, "include_dashboard": False})
    ray.init(address=head.address, log_to_driver=False)
    yield head
    started = [psutil.Process(info.process.pid)
               for infos in head.head_node.all_processes.values() for info in infos]
    started += [child for process in started if process.is_running()
                for child in process.children(recursive=True)]
    ray.shutdown()
    head.shutdown()
    _, alive = psutil.wait_procs(started, timeout=30)
    assert not alive, f"Ray processes left running after shutdown: {alive}"
