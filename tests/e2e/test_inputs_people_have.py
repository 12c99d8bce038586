"""Inputs in the shapes people have: a KubeSchedulerConfiguration inside a ConfigMap (how clusters
and scheduler-plugins' manifests ship it) or among other documents, and kube-scheduler-simulator's
export (simulator/export/export.go ResourcesForExport) as a snapshot and as a configuration."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "inputs"
CONFIGMAP = str(FIXTURES / "scheduler-configmap.yaml")
EXPORT = str(FIXTURES / "simulator-export.json")
CLUSTER = str(Path(__file__).resolve().parents[2] / "examples" / "cluster.yaml")

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: ImageLocality
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-scheduler
  namespace: kube-system
"""


def test_a_configuration_in_a_configmap_is_read_and_its_errors_keep_the_files_lines(run_cli):
    out = run_cli("validate", CONFIGMAP)
    assert out.exit_code == 1
    assert (
        "scheduler-configmap.yaml:-: warning: using the KubeSchedulerConfiguration in ConfigMap "
        "kube-system/scheduler-config (data key scheduler-config.yaml)"
    ) in out.stdout
    # line 21 of the file is `type: MostAllocatd`, inside the ConfigMap's block scalar
    assert (
        'scheduler-configmap.yaml:21: error: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "MostAllocatd"'
    ) in out.stdout
    assert Path(CONFIGMAP).read_text().splitlines()[20].strip() == "type: MostAllocatd"


def test_schedule_runs_with_the_configmaps_configuration(run_cli, tmp_path):
    fixed = tmp_path / "cm.yaml"
    fixed.write_text(Path(CONFIGMAP).read_text().replace("MostAllocatd", "MostAllocated"))
    most = run_cli("schedule", CLUSTER, "--config", str(fixed), "--seed", "1", "-o", "json")
    least = run_cli("schedule", CLUSTER, "--seed", "1", "-o", "json")
    assert most.exit_code == 0 and "using the KubeSchedulerConfiguration in ConfigMap" in most.stderr
    score = {p["pod"]: p["score"] for p in most.json()["placements"]}
    assert score != {p["pod"]: p["score"] for p in least.json()["placements"]}  # MostAllocated scores differ


def test_a_multi_document_file_gives_its_configuration_document_and_says_which(run_cli, tmp_path):
    path = tmp_path / "manifest.yaml"
    path.write_text(DEPLOYMENT + "---\n" + CONFIG.replace("profiles:", "percentageOfNodesToScore: 101\nprofiles:"))
    out = run_cli("validate", str(path))
    assert out.exit_code == 1
    assert "warning: using the KubeSchedulerConfiguration of YAML document 2 of 2" in out.stdout
    assert "manifest.yaml:9: error: percentageOfNodesToScore: Invalid value: 101" in out.stdout  # the file's line
    path.write_text(DEPLOYMENT + "---\n" + CONFIG)
    assert run_cli("schedule", CLUSTER, "--config", str(path), "--seed", "1").exit_code == 0


def test_a_file_of_several_documents_without_a_configuration_or_with_two_is_refused(run_cli, tmp_path):
    none = tmp_path / "none.yaml"
    none.write_text(DEPLOYMENT + "---\n" + DEPLOYMENT)
    out = run_cli("schedule", CLUSTER, "--config", str(none))
    assert out.exit_code == 2
    assert out.stderr.strip().endswith("none of the 2 YAML documents is a KubeSchedulerConfiguration (or a ConfigMap holding one)")
    two = tmp_path / "two.yaml"
    two.write_text(CONFIG + "---\n" + CONFIG)
    out = run_cli("schedule", CLUSTER, "--config", str(two))
    assert out.exit_code == 2 and "2 documents hold a KubeSchedulerConfiguration (documents 1, 2)" in out.stderr


def test_a_simulator_export_is_a_snapshot_and_its_scheduler_config_a_configuration(run_cli):
    plain = run_cli("schedule", EXPORT, "--seed", "1", "-o", "json")
    assert plain.exit_code == 0, plain.stderr
    assert "its schedulerConfig is the configuration only when the file is named with --config too" in plain.stderr
    assert [p["node"] for p in plain.json()["placements"]] == ["node-1"]  # LeastAllocated: an empty node
    packed = run_cli("schedule", EXPORT, "--config", EXPORT, "--seed", "1", "-o", "json")
    assert packed.exit_code == 0, packed.stderr
    assert "using the KubeSchedulerConfiguration of a kube-scheduler-simulator export" in packed.stderr
    assert [p["node"] for p in packed.json()["placements"]] == ["node-0"]  # its MostAllocated: the busy node


def test_a_miscased_field_is_warned_about_as_kubectl_does_and_not_applied(run_cli):
    """The API server drops fields its schema lacks and kubectl warns ('unknown field "..."'):
    the NodeAffinityPolicy written with a capital N is not in force, and the user is told so
    with the file's line and the field it differs from only in case."""
    path = str(FIXTURES / "miscased-fields.yaml")
    out = run_cli("schedule", path, "--seed", "1")
    assert out.exit_code == 0
    assert (
        f'warning: {path}:27: Pod default/web: unknown field "spec.topologySpreadConstraints[0].NodeAffinityPolicy" '
        '(did you mean "nodeAffinityPolicy"?): the API server drops it, so scheduling does not see it'
    ) in out.stderr
    assert 'unknown field "spec.containers[0].resourcse"' in out.stderr
    # the objects kschedctl's own examples and a capture hold give no such warning
    assert "unknown field" not in run_cli("schedule", CLUSTER, "--seed", "1").stderr


def test_objects_with_only_generate_name_get_names_as_the_api_server_gives_them(run_cli):
    """upstream scheduler_perf's templates carry metadata.generateName only: each object is named
    prefix + 5 characters of utilrand's alphabet (apiserver/pkg/storage/names/generate.go), the
    same names on every run of the same input."""
    import re

    path = str(FIXTURES / "generate-name.yaml")
    out = run_cli("schedule", path, "--seed", "1", "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    pods = [p["pod"] for p in data["placements"]]
    nodes = {p["node"] for p in data["placements"]}
    assert len(pods) == 4 and len(set(pods)) == 4
    assert all(re.fullmatch(r"default/pod-[bcdfghjklmnpqrstvwxz2456789]{5}", p) for p in pods)
    assert all(re.fullmatch(r"scheduler-perf-[bcdfghjklmnpqrstvwxz2456789]{5}", n) for n in nodes)
    assert run_cli("schedule", path, "--seed", "1", "-o", "json").stdout == out.stdout


def test_a_capacity_template_with_only_generate_name_is_copied_under_its_prefix(run_cli, tmp_path):
    template = tmp_path / "pod.yaml"
    template.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: batch-\nspec:\n  containers:\n"
        "  - name: c\n    image: busybox\n    resources: {requests: {cpu: '1'}}\n"
    )
    out = run_cli("capacity", CLUSTER, "--pod", str(template), "--max", "2")
    assert out.exit_code == 0, out.stderr
    assert out.stdout.startswith("2 copies of Pod default/batch fit (stopped at --max 2)")


def test_nodes_the_pods_name_and_the_snapshot_lacks_are_named(run_cli):
    """A pod bound to n9 and a pod requiring n7 by matchFields metadata.name, on a snapshot of n1
    and n2: stderr names both nodes; explain's rows say which PreFilter left each node out
    (kube's status names no plugin) and why."""
    path = str(FIXTURES / "absent-nodes.yaml")
    out = run_cli("schedule", path, "--seed", "1")
    assert (
        "warning: the snapshot has no Node n7, n9 (used by pods default/pinned, default/ghost-bound): a bound pod there counts on no node"
    ) in out.stderr
    assert "capture them with `kubectl get nodes -o yaml`" in out.stderr
    data = run_cli("explain", "default/pinned", path, "-o", "json").json()
    facts = data["nodes"]["n1"]["details"]["NodeAffinity"]
    assert facts["missing"] == ["n7"] and "plugin" not in data["nodes"]["n1"]["filter"]  # kube's status, unchanged
    table = run_cli("explain", "default/pinned", path).stdout
    assert "UnschedulableAndUnresolvable: PreFilter: node(s) didn't satisfy plugin(s) [NodeAffinity]" in table
    assert (
        "n1: NodeAffinity: the pod requires one of the nodes n7 (matchFields metadata.name); this is none "
        "of them; no node n7 in the snapshot" in table
    )
