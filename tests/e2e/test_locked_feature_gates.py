"""`--feature-gates` that change a gate the emulated release locks to its default are refused.

From the source of v1.36.2 k8s.io/component-base/featuregate/feature_gate.go (vendored in
openshift/kubernetes-autoscaler) unsafeSetFromMap: a gate whose spec at the emulated version
has LockToDefault and a value other than its default is an error, "cannot set feature gate %v
to %v, feature is locked to %v" (several as utilerrors.NewAggregate prints them), and
kube-scheduler does not start. Which gates lock in which release: v1.36.2
pkg/features/kube_features.go (its versioned specs give 1.35's and 1.36's locks) and the
scheduler's feature list of the 1.37 development tree; see kschedctl/versions.py
LOCKED_TO_DEFAULT. Established by reading the source; no kube-scheduler binary was run.
kschedctl says it as bad input: one `error:` line, exit 2, on every command that takes gates
(validate included, as it treats an unknown gate).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kschedctl.testing import make_node, make_pod
from kschedctl.versions import LOCKED_TO_DEFAULT, SUPPORTED_VERSIONS, KubeVersion

ROOT = Path(__file__).resolve().parents[2]
DRA_OFF = "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"


def _locks(release: str) -> list[str]:
    return [g for g, since in LOCKED_TO_DEFAULT.items() if KubeVersion(release).at_least(since)]


def test_the_lock_table_of_each_release():
    assert _locks("1.35") == ["DynamicResourceAllocation", "SchedulerQueueingHints", "SidecarContainers"]
    assert _locks("1.36") == _locks("1.35") + ["VolumeAttributesClass", "DRAAdminAccess"]
    assert _locks("1.37") == _locks("1.36") + [
        "DRAPrioritizedList",
        "DRAResourceClaimDeviceStatus",
        "DRAExtendedResource",
        "NodeDeclaredFeatures",
    ]
    for release in SUPPORTED_VERSIONS:  # every lock holds a gate at true in its release
        assert all(KubeVersion(release).feature_enabled(g) for g in _locks(release))


@pytest.fixture
def snapshot(write_snapshot) -> str:
    return write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_pod("web").req(cpu="1"))


def _refused(out, message: str) -> None:
    assert out.exit_code == 2, (out.stdout, out.stderr)
    assert out.stdout == ""
    assert out.stderr == f"error: {message}\n"


@pytest.mark.parametrize("release", SUPPORTED_VERSIONS)
@pytest.mark.parametrize("gate", sorted(set(LOCKED_TO_DEFAULT)), ids=lambda g: g if isinstance(g, str) else str(g))
def test_schedule_refuses_a_locked_gate_and_takes_its_default(run_cli, snapshot, release, gate):
    out = run_cli("schedule", snapshot, "--kube-version", release, "--feature-gates", f"{gate}=false", "-o", "json")
    if gate in _locks(release):
        _refused(out, f"cannot set feature gate {gate} to false, feature is locked to true")
    else:  # not locked yet in this release: it may be turned off
        assert out.exit_code == 0, out.stderr
    assert run_cli("schedule", snapshot, "--kube-version", release, "--feature-gates", f"{gate}=true").exit_code == 0


def test_several_locked_gates_read_as_an_aggregate(run_cli, snapshot):
    out = run_cli(
        "schedule",
        snapshot,
        "--kube-version",
        "1.35",
        "--feature-gates",
        "SidecarContainers=false,GenericWorkload=true,DynamicResourceAllocation=false",
    )
    _refused(out, f"[cannot set feature gate SidecarContainers to false, feature is locked to true, {DRA_OFF}]")


def test_explain_simulate_and_diff_refuse_it(run_cli, snapshot, tmp_path):
    gates = "DynamicResourceAllocation=false"
    _refused(run_cli("explain", "default/web", snapshot, "--feature-gates", gates), DRA_OFF)
    scenario = tmp_path / "scenario.yaml"
    doc = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "s"},
        "objects": [make_node("n1").capacity(cpu="4", memory="8Gi").dict()],
        "events": [],
    }
    scenario.write_text(yaml.safe_dump(doc))
    _refused(run_cli("simulate", str(scenario), "--feature-gates", gates), DRA_OFF)
    _refused(run_cli("diff", snapshot, "--feature-gates-a", gates), DRA_OFF)
    _refused(run_cli("diff", snapshot, "--feature-gates-b", gates), DRA_OFF)


def test_validate_refuses_it_as_bad_input(run_cli, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    _refused(
        run_cli("validate", str(config), "--kube-version", "1.36", "--feature-gates", "DRAAdminAccess=false"),
        "cannot set feature gate DRAAdminAccess to false, feature is locked to true",
    )
    assert run_cli("validate", str(config), "--kube-version", "1.35", "--feature-gates", "DRAAdminAccess=false").exit_code == 0


def test_sweep_names_the_matrix_entry_and_the_release(run_cli, snapshot, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(
        "apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\n"
        f"snapshots: ['{snapshot}']\n"
        "kubeVersions: ['1.35', '1.36']\n"
        "featureGates: ['', 'VolumeAttributesClass=false']\n"
    )
    out = run_cli("sweep", "m.yaml")
    _refused(
        out,
        "m.yaml:5: Sweep: featureGates[1]: cannot set feature gate VolumeAttributesClass to false, "
        "feature is locked to true (kube-scheduler 1.36)",
    )
    assert not Path("m.results.parquet").exists()


def test_the_process_exits_2(snapshot):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-m", "kschedctl", "schedule", snapshot, "--feature-gates", "SchedulerQueueingHints=false"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "error: cannot set feature gate SchedulerQueueingHints to false, feature is locked to true\n"
