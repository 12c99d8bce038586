"""`kschedctl explain -o json` with NodeAffinity: both filter reasons and normalized preferred scores.

Upstream: nodeaffinity/node_affinity.go. The config adds a scheduler-enforced affinity (zone Exists),
so n4 (no zone) fails with the enforced reason; n3 fails the pod's nodeSelector; n1 and n2 pass and
score by the preferred terms: n1 matches weight 2, n2 weights 2+4 -> normalized 33 and 100.
"""

from __future__ import annotations

from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {zone: z1, disk: ssd}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {zone: z2, disk: ssd, gpu: "yes"}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {zone: z3, disk: hdd}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n4, labels: {disk: ssd}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec:
    containers: [{name: c, image: x}]
    nodeSelector: {disk: ssd}
    affinity:
      nodeAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - {weight: 2, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}
        - {weight: 4, preference: {matchExpressions: [{key: gpu, operator: Exists}]}}
"""

ADDED_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}
}
CONFIG = only_plugins("NodeAffinity", weights={"NodeAffinity": 2}, plugin_config={"NodeAffinity": {"addedAffinity": ADDED_AFFINITY}})


def test_explain_node_affinity(explain_json) -> None:
    out = explain_json(SNAPSHOT, CONFIG, "default/web")
    nodes = out["nodes"]
    assert nodes["n3"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "NodeAffinity",
        "reasons": ["node(s) didn't match Pod's node affinity/selector"],
    }
    assert nodes["n4"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "NodeAffinity",
        "reasons": ["node(s) didn't match scheduler-enforced node affinity"],
    }
    assert nodes["n1"]["scores"]["NodeAffinity"] == {"score": 33, "weight": 2}
    assert nodes["n2"]["scores"]["NodeAffinity"] == {"score": 100, "weight": 2}
    assert out["node"] == "n2"
