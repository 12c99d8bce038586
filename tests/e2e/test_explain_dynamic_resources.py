"""`kschedctl explain -o json` with DynamicResources: a pod without claims scores 0 (weight 2)
and, when nothing fits, the PostFilter text "no new claims to deallocate" follows the FitError
(reference section 12; upstream dynamicresources_test.go TestPlugin "empty")."""

from __future__ import annotations

from pathlib import Path

from volume_e2e import explain

FITS = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}]}
"""

NO_FIT = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: existing, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, image: x}], volumes: [{name: d, awsElasticBlockStore: {volumeID: v1}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: existing2, namespace: default}
  spec: {nodeName: n2, containers: [{name: c, image: x}], volumes: [{name: d, awsElasticBlockStore: {volumeID: v1}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec: {containers: [{name: c, image: x}], volumes: [{name: d, awsElasticBlockStore: {volumeID: v1}}]}
"""


def test_explain_dynamic_resources_scores_zero(tmp_path: Path) -> None:
    out = explain(tmp_path, FITS)
    for name in ("n1", "n2"):
        node = out["nodes"][name]
        assert node["filter"] == {"code": "Success"}
        assert node["scores"]["DynamicResources"] == {"score": 0, "weight": 2}


def test_explain_dynamic_resources_post_filter_message(tmp_path: Path) -> None:
    out = explain(tmp_path, NO_FIT)
    assert out["node"] is None
    assert out["message"] == "0/2 nodes are available: 2 node(s) had no available disk. no new claims to deallocate"
