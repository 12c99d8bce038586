"""The 1.37 defaults and locks of the gates kschedctl knows, against the scheduler's own list.

Transcribed from staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go of the 1.37
development tree (commit ead35706ec68f83822a56d53b1577fa8a185ca14; 080d02a09a47 agrees on
every gate here): the value at 1.37 of each gate's versioned specs, and whether that spec has
LockToDefault. Gates the file does not hold (SchedulerQueueingHints, SidecarContainers,
MatchLabelKeysInPodTopologySpreadSelectorMerge, GangScheduling) stay as kschedctl/versions.py has
them. DRADeviceTaints and DRADeviceTaintRules are GA in 1.37 with "LockToDefault: false" (locked
only from 1.38), so turning them off is still taken.
"""

from __future__ import annotations

import pytest

from kschedctl.testing import make_node, make_pod
from kschedctl.versions import LOCKED_TO_DEFAULT, KubeVersion

# gate: (default at 1.37, locked at 1.37)
SCHEDULER_FEATURES_137 = {
    "DRAAdminAccess": (True, True),
    "DRAConsumableCapacity": (True, False),
    "DRADeviceBindingConditions": (True, False),
    "DRADeviceTaintRules": (True, False),
    "DRADeviceTaints": (True, False),
    "DRAExtendedResource": (True, True),
    "DRAPartitionableDevices": (True, False),
    "DRAPrioritizedList": (True, True),
    "DRAResourceClaimDeviceStatus": (True, True),
    "DRASchedulerFilterTimeout": (True, False),
    "DynamicResourceAllocation": (True, True),
    "GenericWorkload": (False, False),
    "MatchLabelKeysInPodTopologySpread": (True, False),
    "NodeDeclaredFeatures": (True, True),
    "PodLevelResources": (True, False),
    "SchedulerAsyncPreemption": (True, False),
    "SchedulerPopFromBackoffQ": (True, False),
    "StorageCapacityScoring": (True, False),
    "TaintTolerationComparisonOperators": (False, False),
    "TopologyAwareWorkloadScheduling": (False, False),
    "VolumeAttributesClass": (True, True),
}


@pytest.mark.parametrize("gate", sorted(SCHEDULER_FEATURES_137))
def test_default_and_lock_at_1_37(gate):
    default, locked = SCHEDULER_FEATURES_137[gate]
    version = KubeVersion("1.37")
    assert version.feature_enabled(gate) is default
    assert (gate in LOCKED_TO_DEFAULT and version.at_least(LOCKED_TO_DEFAULT[gate])) is locked


@pytest.mark.parametrize(
    "gates, refused",
    [
        ("DRADeviceTaints=false", None),
        ("DRADeviceTaintRules=false", None),
        ("StorageCapacityScoring=false", None),
        ("DRAExtendedResource=false", "cannot set feature gate DRAExtendedResource to false, feature is locked to true"),
        ("NodeDeclaredFeatures=false", "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true"),
    ],
)
def test_ga_gates_at_1_37_through_the_cli(run_cli, write_snapshot, gates, refused):
    path = write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_pod("web").req(cpu="1"))
    out = run_cli("schedule", path, "--feature-gates", gates, "-o", "json")
    if refused is None:
        assert out.exit_code == 0, out.stderr
        assert [p["node"] for p in out.json()["placements"]] == ["n1"]
    else:
        assert (out.exit_code, out.stdout, out.stderr) == (2, "", f"error: {refused}\n")
