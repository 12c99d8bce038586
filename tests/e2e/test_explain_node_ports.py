"""`kschedctl explain -o json` with NodePorts: a bound pod's host port blocks its node.

Upstream: nodeports/node_ports.go ("node(s) didn't have free ports for the requested pod ports",
Unschedulable). The bound pod uses TCP 8080 on 0.0.0.0 on n1, which overlaps the pending pod's
127.0.0.1:8080; n2 is free.
"""

from __future__ import annotations

from kschedctl.testing import only_plugins

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: existing, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, image: x, ports: [{containerPort: 8080, hostPort: 8080}]}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x, ports: [{containerPort: 8080, hostPort: 8080, hostIP: 127.0.0.1}]}]}
"""

CONFIG = only_plugins("NodePorts")


def test_explain_node_ports(explain_json) -> None:
    out = explain_json(SNAPSHOT, CONFIG, "default/web")
    assert out["nodes"]["n1"]["filter"] == {
        "code": "Unschedulable",
        "plugin": "NodePorts",
        "reasons": ["node(s) didn't have free ports for the requested pod ports"],
    }
    assert out["nodes"]["n2"]["filter"] == {"code": "Success"}
    assert out["node"] == "n2"
