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
