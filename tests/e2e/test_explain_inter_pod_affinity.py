"""`kschedctl explain -o json` with InterPodAffinity: filter statuses and normalized scores per node.

Scenario (upstream semantics: interpodaffinity/filtering.go and scoring.go): `web` on n2 has a required
anti-affinity against app=cache in its zone, so the incoming `cache` pod is rejected there with the
existing-pods reason; `cache` prefers the zone of `db` (n1), so n1 scores 100 and n3 scores 0.
"""

from __future__ import annotations

from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {zone: z1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {zone: z2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {zone: z3}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: default, labels: {app: db}}
  spec: {nodeName: n1, containers: [{name: c, image: x}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, labels: {app: web}}
  spec:
    nodeName: n2
    containers: [{name: c, image: x}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {labelSelector: {matchLabels: {app: cache}}, topologyKey: zone}
- apiVersion: v1
  kind: Pod
  metadata: {name: cache, namespace: default, labels: {app: cache}}
  spec:
    containers: [{name: c, image: x}]
    affinity:
      podAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          podAffinityTerm: {labelSelector: {matchLabels: {app: db}}, topologyKey: zone}
"""

# Only InterPodAffinity (plus the mandatory sort and bind plugins), weight 2 as in the default profile.
CONFIG = only_plugins("InterPodAffinity", weights={"InterPodAffinity": 2})


def test_explain_inter_pod_affinity(explain_json) -> None:
    out = explain_json(SNAPSHOT, CONFIG, "default/cache")
    nodes = out["nodes"]
    assert nodes["n2"]["filter"] == {
        "code": "Unschedulable",
        "plugin": "InterPodAffinity",
        "reasons": ["node(s) didn't satisfy existing pods anti-affinity rules"],
    }
    assert nodes["n1"]["filter"]["code"] == "Success"
    assert nodes["n3"]["filter"]["code"] == "Success"
    assert nodes["n1"]["scores"]["InterPodAffinity"] == {"score": 100, "weight": 2}
    assert nodes["n3"]["scores"]["InterPodAffinity"] == {"score": 0, "weight": 2}
    assert nodes["n1"]["total"] == 200
    assert out["node"] == "n1"
