"""`kschedctl explain -o json` with ImageLocality: scores from image sizes scaled by spread.

Upstream: imagelocality/image_locality.go and its TestImageLocalityPriority tables: pod images
gcr.io/40 and gcr.io/250; n1 has 40M (40M/2 < 23M -> 0), n2 has 250M:
100*(250M/2-23M)/(2*1000M-23M) = 5.
"""

from __future__ import annotations

from kschedctl.testing import only_plugins

MB = 1024 * 1024
SNAPSHOT = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {{name: n1}}
  status:
    allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
    images: [{{names: ["gcr.io/40:latest", "gcr.io/40:v1"], sizeBytes: {40 * MB}}}]
- apiVersion: v1
  kind: Node
  metadata: {{name: n2}}
  status:
    allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
    images: [{{names: ["gcr.io/250:latest"], sizeBytes: {250 * MB}}}]
- apiVersion: v1
  kind: Pod
  metadata: {{name: web, namespace: default}}
  spec: {{containers: [{{name: a, image: gcr.io/40}}, {{name: b, image: gcr.io/250}}]}}
"""

CONFIG = only_plugins("ImageLocality")


def test_explain_image_locality(explain_json) -> None:
    out = explain_json(SNAPSHOT, CONFIG, "default/web")
    assert out["nodes"]["n1"]["scores"]["ImageLocality"] == {"score": 0, "weight": 1}
    assert out["nodes"]["n2"]["scores"]["ImageLocality"] == {"score": 5, "weight": 1}
    assert out["node"] == "n2"
