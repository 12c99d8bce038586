"""PreFilter of a pod with nothing for a plugin to check: the plugins that look only at volumes,
claims or host ports answer Skip at once (VolumeRestrictions, VolumeZone, DynamicResources,
NodePorts), as their full walk concludes, and a pod that has such a thing still gets the full
walk. Upstream: pkg/scheduler/framework/plugins/{volumerestrictions,volumezone,
dynamicresources,nodeports}, each PreFilter returning fwk.Skip for a pod without its inputs.
"""

from __future__ import annotations

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.testing import make_node, make_pod, new_framework

NOTHING_TO_CHECK = {"VolumeRestrictions", "VolumeZone", "DynamicResources", "NodePorts", "VolumeBinding", "NodeVolumeLimits"}


def _framework():
    return new_framework(nodes=[make_node(f"n{i}").capacity(cpu="4", memory="8Gi").obj() for i in range(3)])


def test_a_plain_pod_skips_the_volume_claim_and_port_plugins_and_still_reserves():
    fwk = _framework()
    pod = make_pod("plain").req(cpu="100m").obj()
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    assert status.is_success()
    assert NOTHING_TO_CHECK <= state.skip_filter_plugins
    # DynamicResources wrote its (empty) state before skipping: Reserve and PreBindPreFlight read it.
    assert fwk.run_reserve_plugins_reserve(state, pod, "n0").is_success()
    assert fwk.run_pre_bind_pre_flights(state, pod, "n0").code in (Code.Success, Code.Skip)


def test_a_pod_with_a_missing_claim_is_walked_not_skipped():
    fwk = _framework()
    pod = make_pod("with-pvc").req(cpu="100m").pvc("data").obj()
    state = CycleState()
    _, status, plugins = fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    assert status.code == Code.UnschedulableAndUnresolvable
    assert plugins == {"VolumeRestrictions"} and status.plugin == "VolumeRestrictions"
    assert 'persistentvolumeclaim "data" not found' in status.message()


def test_a_pod_with_an_empty_dir_is_walked_to_the_same_skip():
    fwk = _framework()
    pod = make_pod("scratch").req(cpu="100m").volume({"name": "tmp", "emptyDir": {}}).obj()
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    assert status.is_success()
    assert {"VolumeRestrictions", "VolumeZone", "DynamicResources"} <= state.skip_filter_plugins


def test_a_pod_with_a_host_port_or_a_claim_is_not_skipped():
    fwk = _framework()
    ported = make_pod("ported").req(cpu="100m").host_port(8080).obj()
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, ported, fwk.snapshot.list())
    assert status.is_success() and "NodePorts" not in state.skip_filter_plugins

    claimed = make_pod("claimed").req(cpu="100m").obj()
    claimed.resource_claims = ({"name": "gpu", "resourceClaimName": "gpu-claim"},)
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, claimed, fwk.snapshot.list())
    assert status.code == Code.UnschedulableAndUnresolvable and status.plugin == "DynamicResources"
    assert status.message() == 'could not find ResourceClaim "default/gpu-claim"'
