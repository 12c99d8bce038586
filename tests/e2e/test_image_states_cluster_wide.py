"""ImageLocality reads the cache's cluster-wide image states, not each node's own size.

From the source of v1.36.2 pkg/scheduler/backend/cache/cache.go (vendored in
openshift/kubernetes-autoscaler cluster-autoscaler/vendor/k8s.io/kubernetes) and of the newest
kubernetes/kubernetes (1.37) same file; 1.35's cache.go has the same two functions
(``addNodeImageStates``: the first node to report a name makes its ImageStateSummary with that
image's size, every later node only joins its Nodes set; ``removeNodeImageStates``: the entry
goes with its last holder) and framework/types.go ``ImageStateSummary.Snapshot`` (NumNodes is
the holder count when a NodeInfo is cloned into the snapshot). Established by reading the
source; no kube-scheduler binary was run for these cases. The "first" node is the first added
to the cache: kschedctl adds a snapshot's nodes in input order.
"""

from __future__ import annotations

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

ALL_RELEASES = ("1.35", "1.36", "1.37")
MB = 1024 * 1024
IMAGE = "registry.example/app:1"
ONLY_IMAGE_LOCALITY_SCORE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: ImageLocality}]
"""


def _node(name: str, size_mb: float | None):
    b = make_node(name).capacity(cpu="4", memory="8Gi", pods="110")
    if size_mb is not None:
        b = b.images([([IMAGE], int(size_mb * MB))])
    return b


def _image_scores(run_cli, path: str, release: str) -> dict[str, int]:
    data = run_cli("explain", "default/web", path, "--kube-version", release, "-o", "json").json()
    return {name: row["scores"]["ImageLocality"]["score"] for name, row in data["nodes"].items()}


@pytest.mark.parametrize("release", ALL_RELEASES)
@pytest.mark.parametrize(
    "first, second, want",
    [
        # 100*(330M-23M)/(1000M-23M) = 31 for both; n2 alone (340M) would be 32
        (330, 340, 31),
        (340, 330, 32),
        # 100*(995M-23M)/977M = 99 for both; n2 alone (1000M) would be 100
        (995, 1000, 99),
    ],
    ids=["330-then-340", "340-then-330", "995-then-1000"],
)
def test_every_node_scores_the_first_reported_size(run_cli, write_snapshot, release, first, second, want):
    path = write_snapshot(_node("n1", first), _node("n2", second), make_pod("web").image(IMAGE))
    assert _image_scores(run_cli, path, release) == {"n1": want, "n2": want}


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_batch_form_reads_the_same_summaries(run_cli, write_snapshot, release):
    # 30 nodes (the columnar batch form from 24 on): 20 hold the image with sizes 600M..790M;
    # every holder gets the first one's 600M: 100*(600M*20/30-23M)/977M = 38
    nodes = [_node(f"n{i:02d}", 600 + 10 * i if i < 20 else None) for i in range(30)]
    path = write_snapshot(*nodes, make_pod("web").image(IMAGE))
    got = _image_scores(run_cli, path, release)
    assert {got[f"n{i:02d}"] for i in range(20)} == {38}
    assert {got[f"n{i:02d}"] for i in range(20, 30)} == {0}


def _scenario(tmp_path, events: list[dict]) -> str:
    """n1 reports the image at 500M (first), n2 at 900M, n3 none; 'early' lands on n3 at 0s
    (a scheduling cycle clones every node into the snapshot: counts 2 of 3)."""
    objects = [
        _node("n1", 500).dict(),
        _node("n2", 900).dict(),
        _node("n3", None).label("kubernetes.io/hostname", "n3").dict(),
        make_pod("early").node_selector({"kubernetes.io/hostname": "n3"}).dict(),
    ]
    web = make_pod("web").image(IMAGE).dict()
    doc = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "images"},
        "objects": objects,
        "events": [*events, {"at": "5m", "action": "createPod", "object": web}],
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def _web_score(run_cli, tmp_path, scenario: str, release: str) -> int:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(ONLY_IMAGE_LOCALITY_SCORE)
    data = run_cli("simulate", scenario, "--config", str(cfg), "--kube-version", release, "--seed", "1", "-o", "json").json()
    placed = {p["pod"]: p for p in data["placements"]}
    return placed["default/web"]["score"]


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_a_summary_outlives_its_first_holder(run_cli, tmp_path, release):
    # n1 (the 500M that made the entry) goes; n2 still holds the name, so the entry stays at
    # 500M and n4, reporting 900M, joins it. Snapshot at 5m: n2 not cloned since 0s (500M, 2),
    # n4 (500M, 2 = n2, n4), 3 nodes: 100*(500M*2/3-23M)/977M = 31 (own sizes would give 59).
    scenario = _scenario(
        tmp_path,
        [
            {"at": "1m", "action": "removeNode", "node": "n1"},
            {"at": "2m", "action": "addNode", "object": _node("n4", 900).dict()},
        ],
    )
    assert _web_score(run_cli, tmp_path, scenario, release) == 31


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_a_summary_made_anew_after_its_last_holder(run_cli, tmp_path, release):
    # n1 and n2 both go: the entry is deleted; n4 then makes it anew with its own 900M.
    # Snapshot at 5m: n3, n4 (900M, 1), n5: 100*(900M/3-23M)/977M = 28.
    scenario = _scenario(
        tmp_path,
        [
            {"at": "1m", "action": "removeNode", "node": "n1"},
            {"at": "1m", "action": "removeNode", "node": "n2"},
            {"at": "2m", "action": "addNode", "object": _node("n4", 900).dict()},
            {"at": "2m", "action": "addNode", "object": _node("n5", None).dict()},
        ],
    )
    assert _web_score(run_cli, tmp_path, scenario, release) == 28


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_holder_count_is_the_one_at_the_node_s_last_clone(run_cli, tmp_path, release):
    # n1 goes after the 0s cycle; n2's snapshot NodeInfo is not cloned again (nothing on it
    # changed), so it keeps NumNodes 2 while the snapshot has 2 nodes: spread 2/2, the 500M
    # entry counts whole: 100*(500M-23M)/977M = 48 (a fresh count would give 500M/2: 23).
    scenario = _scenario(tmp_path, [{"at": "1m", "action": "removeNode", "node": "n1"}])
    assert _web_score(run_cli, tmp_path, scenario, release) == 48
