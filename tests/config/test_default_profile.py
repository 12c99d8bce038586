"""The default profile: exactly upstream's default plugins, per extension point, in order, with their
weights. Pinned to what kube-scheduler 1.35.4's own framework builds with the v1 defaults
(reference section 12; pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins +
applyFeatureGates, framework/runtime/framework.go expandMultiPointPlugins)."""

import pytest

from kschedctl.testing import new_framework
from kschedctl.versions import KubeVersion

EXPECTED = {
    "preEnqueue": ["SchedulingGates", "DynamicResources", "DefaultPreemption"],
    "queueSort": ["PrioritySort"],
    "preFilter": [
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ],
    "filter": [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ],
    "postFilter": ["DynamicResources", "DefaultPreemption"],
    "preScore": [
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
    ],
    "score": [
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    ],
    "reserve": ["VolumeBinding", "DynamicResources"],
    "preBind": ["VolumeBinding", "DynamicResources"],
    "bind": ["DefaultBinder"],
}
WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "DynamicResources": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_default_profile_plugins_order_and_weights(release):
    fwk = new_framework(version=KubeVersion(release))
    assert fwk.list_plugins() == EXPECTED
    assert fwk.score_weights == WEIGHTS
    assert fwk.profile_name == "default-scheduler"


def test_default_plugin_args():
    fwk = new_framework()
    fit = fwk.instances["NodeResourcesFit"]
    assert fit is not None
    from kschedctl.config.loader import load_config_text
    from kschedctl.plugins.plugin_manager import default_registry

    cfg = load_config_text("", "<default>", KubeVersion(), default_registry().registry)
    args = {pc.name: pc.args.to_dict() for pc in cfg.profiles[0].plugin_config}  # typed args, as JSON
    assert args["DefaultPreemption"] == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}
    assert args["InterPodAffinity"]["hardPodAffinityWeight"] == 1
    assert args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert args["NodeResourcesFit"]["scoringStrategy"]["resources"] == [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    assert args["PodTopologySpread"]["defaultingType"] == "System"
    assert args["VolumeBinding"]["bindTimeoutSeconds"] == 600
