"""`capacity --live`: the same answer as `capacity` on the captured file, in one step."""

from __future__ import annotations

from pathlib import Path

import yaml

from kschedctl.testing import make_pod


def test_capacity_live_answers_as_capacity_on_the_captured_file(api, kubeconfig, tmp_path: Path, run_cli) -> None:
    captured = tmp_path / "captured.yaml"
    assert run_cli("capture", "-o", str(captured)).exit_code == 0
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump(make_pod("probe").req(cpu="250m", memory="256Mi").dict()))
    from_file = run_cli("capacity", str(captured), "--pod", str(pod), "-o", "json", "--seed", "2")
    live = run_cli("capacity", "--live", "--pod", str(pod), "-o", "json", "--seed", "2")
    assert live.exit_code == from_file.exit_code == 0, live.stderr
    assert live.stdout == from_file.stdout
    assert live.json()["count"] > 0


def test_diff_live_compares_the_clusters_own_configuration_with_a_candidate(api, kubeconfig, tmp_path: Path, run_cli) -> None:
    """diff --live: the live cluster as side A's snapshot, the ConfigMap's configuration as side A's
    configuration (--scheduler-config), --config-b as the candidate — the same answer as diff on the
    captured files."""
    captured, cfg = tmp_path / "captured.yaml", tmp_path / "live-config.yaml"
    assert (
        run_cli(
            "capture", "-o", str(captured), "--scheduler-config", "configmap/kube-system/kube-scheduler-config", "--config-output", str(cfg)
        ).exit_code
        == 0
    )
    candidate = Path(__file__).parents[2] / "profiles" / "default.yaml"
    from_file = run_cli("diff", str(captured), "--config-a", str(cfg), "--config-b", str(candidate), "-o", "json")
    live = run_cli(
        "diff", "--live", "--scheduler-config", "configmap/kube-system/kube-scheduler-config", "--config-b", str(candidate), "-o", "json"
    )
    assert live.exit_code == from_file.exit_code == 0, live.stderr
    live_json, file_json = live.json(), from_file.json()
    # side A's configuration is where each run read it: the ConfigMap's copy, or the captured file
    assert "configmap.kube-system.kube-scheduler-config" in live_json["a"].pop("config")
    file_json["a"].pop("config")
    assert live_json == file_json
    assert live_json["summary"]["a"]["pending"] == 7
