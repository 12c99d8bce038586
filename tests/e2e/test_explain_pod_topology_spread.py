"""`kschedctl explain -o json` with PodTopologySpread: filter statuses and normalized scores per node.

Scenario (upstream semantics: podtopologyspread/filtering.go and scoring.go): zone z1 already holds two
app=web pods and z2 none, so with maxSkew 1 on the zone only n3 (z2) fits; n4 lacks the zone label
(UnschedulableAndUnresolvable, "missing required label"). The soft hostname constraint scores the only
feasible node 100.
"""

from __future__ import annotations

from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {zone: z1, kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {zone: z1, kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {zone: z2, kubernetes.io/hostname: n3}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n4, labels: {kubernetes.io/hostname: n4}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: w1, namespace: default, labels: {app: web}}
  spec: {nodeName: n1, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: w2, namespace: default, labels: {app: web}}
  spec: {nodeName: n2, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, labels: {app: web}}
  spec:
    containers: [{name: c, image: x}]
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}
"""

# Only PodTopologySpread (plus the mandatory sort and bind plugins), weight 2 as in the default profile.
CONFIG = only_plugins("PodTopologySpread", weights={"PodTopologySpread": 2})


def test_explain_pod_topology_spread(explain_json) -> None:
    out = explain_json(SNAPSHOT, CONFIG, "default/web")
    nodes = out["nodes"]
    for name in ("n1", "n2"):
        assert nodes[name]["filter"] == {
            "code": "Unschedulable",
            "plugin": "PodTopologySpread",
            "reasons": ["node(s) didn't match pod topology spread constraints"],
        }
    assert nodes["n4"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "PodTopologySpread",
        "reasons": ["node(s) didn't match pod topology spread constraints (missing required label)"],
    }
    assert nodes["n3"]["filter"]["code"] == "Success"
    assert nodes["n3"]["scores"]["PodTopologySpread"] == {"score": 100, "weight": 2}
    assert nodes["n3"]["total"] == 200
    assert out["node"] == "n3"
