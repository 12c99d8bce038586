"""DynamicResources' shortcuts change nothing: the batch Filter, the reuse of an earlier pod's
outcome on an unchanged node (DRAManager.filter_memo) and the answer for nodes whose devices are
all taken give the same placements and the same devices as running the allocator for every pod
on every node (kube's way), while the cluster fills up and pods start failing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.plugins.dynamic_resources import DynamicResources
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import dra_schedule  # noqa: E402


def _run(path: Path, release: str) -> tuple[Any, ...]:
    version = KubeVersion(release)
    registry = default_registry().registry
    sched = Scheduler(load_snapshot([str(path)]), load_config_file(None, version, registry), registry, version, seed=1)
    result = sched.run()
    claims = sorted(
        (c.key, tuple(r.device for r in c.allocation.results)) for c in sched.objects.resource_claims.values() if c.allocation is not None
    )
    return ([(p.pod, p.node) for p in result.placements], [(u.pod, u.message) for u in result.unschedulable], claims)


@pytest.mark.parametrize("release", ["1.35", "1.37"])
@pytest.mark.usefixtures("columnar_view")  # the batch Filter runs whatever COLUMNAR_MIN_NODES is
def test_shortcuts_decide_as_the_allocator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release: str) -> None:
    path = tmp_path / "dra.json"
    path.write_text(json.dumps(dra_schedule.build(nodes=24, devices=4, pods=90)))
    fast = _run(path, release)
    monkeypatch.setattr(DynamicResources, "filter_batch", lambda self, state, pod, infos: [self.filter(state, pod, ni) for ni in infos])
    monkeypatch.setattr(DynamicResources, "_allocate", lambda self, s, node, claims, sig: s.allocator.allocate(node, claims))
    monkeypatch.setattr(DynamicResources, "_allocate_on", _plain_allocate_on)
    plain = _run(path, release)
    assert fast == plain
    assert fast[1], "the workload should fill the cluster"


def _plain_allocate_on(self: Any, s: Any, node: Any, claims: list, rejected: Any = None) -> Any:
    from kschedctl.dra.structured import AllocationError, AllocationFailedOnNode
    from kschedctl.framework.interface import Code, Status
    from kschedctl.plugins.dynamic_resources.plugin import MSG_CANNOT_ALLOCATE, statusUnschedulable

    try:
        found = s.allocator.allocate(node, claims)
    except AllocationFailedOnNode as exc:
        return statusUnschedulable(str(exc)), None
    except AllocationError as exc:
        return Status(Code.Error, str(exc)), None
    if found is None:
        return statusUnschedulable(MSG_CANNOT_ALLOCATE), None
    return None, found


def test_allocated_devices_are_counted_as_claim_usage_counts_them() -> None:
    """DRAManager counts, result by result, what claim_usage (foreachAllocatedDevice: admin
    access takes nothing, a shared result with consumable capacity takes a share and adds its
    consumed capacity, any other takes its device) says each claim takes, for random
    allocations with and without those results."""
    import random
    from collections import Counter
    from fractions import Fraction

    from kschedctl.api.objects import ClusterObjects
    from kschedctl.api.resourceclaim import ResourceClaim
    from kschedctl.dra.manager import DRAManager, claim_usage

    rng = random.Random(7)
    for consumable in (False, True):
        claims = []
        for i in range(300):
            results = []
            for _ in range(rng.choice([0, 1, 1, 2])):
                r = {"request": "r", "driver": "gpu.example.com", "pool": f"pool-{rng.randrange(4)}", "device": f"dev-{rng.randrange(12)}"}
                if rng.random() < 0.1:
                    r["adminAccess"] = True
                if rng.random() < 0.1:
                    r["shareID"] = "s1"
                    r["consumedCapacity"] = {"memory": f"{rng.randrange(1, 4)}Gi"}
                results.append(r)
            status = {} if rng.random() < 0.1 else {"allocation": {"devices": {"results": results}}}
            raw = {"kind": "ResourceClaim", "metadata": {"name": f"c{i}", "namespace": "ns"}, "spec": {}, "status": status}
            claims.append(ResourceClaim.from_dict(raw))
        objects = ClusterObjects()
        objects.resource_claims = {c.key: c for c in claims}
        manager = DRAManager(objects, consumable_capacity=consumable)
        dedicated: Counter = Counter()
        shared: Counter = Counter()
        capacity: dict = {}
        revision = 0
        for claim in claims:
            usage = claim_usage(claim, consumable)
            revision += bool(usage.dedicated or usage.shared or usage.capacity)
            dedicated.update(usage.dedicated)
            shared.update(usage.shared)
            for device, name, value in usage.capacity:
                capacity.setdefault(device, {})[name] = capacity.get(device, {}).get(name, Fraction(0)) + value
        assert manager._dedicated == dedicated and manager._shared == shared and manager._capacity == capacity
        assert manager._per_pool == Counter((d.driver, d.pool) for d in dedicated)
        assert manager.revision == revision
        assert sum(dedicated.values()) > 100 and (not consumable or len(shared) > 5)
