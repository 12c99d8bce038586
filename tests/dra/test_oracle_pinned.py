"""Single behaviours of kube-scheduler 1.35.4 found with kschedoracle, pinned with their input."""

from __future__ import annotations

import json

SUBREQUESTS_ALL = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: a}
  spec: {selectors: [{cel: {expression: 'device.driver == "driver-a"'}}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: s1}
  spec: {driver: driver-a, nodeName: n1, pool: {name: p1, generation: 1, resourceSliceCount: 1},
         devices: [{name: d1, attributes: {generation: {string: v5}}}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: c, namespace: default, uid: c-uid}
  spec:
    devices:
      requests:
      - name: req-0
        firstAvailable:
        - {name: sub0, deviceClassName: a, allocationMode: All,
           selectors: [{cel: {expression: 'device.attributes["driver-a"].generation == "v6"'}}]}
        - {name: sub1, deviceClassName: a, allocationMode: All,
           selectors: [{cel: {expression: 'device.attributes["driver-a"].generation == "v5"'}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default, uid: p-uid}
  spec: {containers: [{name: c, image: x}], resourceClaims: [{name: c, resourceClaimName: c}]}
"""


def test_all_subrequest_after_another_sees_its_selector_verdicts(run_cli, tmp_path) -> None:
    # kschedoracle -mode sequential on this input (default config): Unschedulable with this
    # message, although device d1 matches sub1. The newer upstream table
    # ("prioritized-list-allocation-mode-all-with-selectors") expects req-0/sub1 on d1.
    path = tmp_path / "snap.yaml"
    path.write_text(SUBREQUESTS_ALL)
    out = run_cli("schedule", str(path), "--kube-version", "1.35", "-o", "json")
    assert out.exit_code == 0, out.stderr
    [u] = json.loads(out.stdout)["unschedulable"]
    assert u["message"] == (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
