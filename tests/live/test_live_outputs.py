"""Output files of live commands (issue 21): `capture -o` and --report/--write-snapshot with
--live never overwrite the kubeconfig read (by path, symlink or hard link), and a bad output is
refused before the cluster is read."""

from __future__ import annotations

import os
import stat

import pytest


def _error_line(out) -> str:
    assert out.exit_code == 2, (out.exit_code, out.stderr)
    [line] = [x for x in out.stderr.splitlines() if x.startswith("error: ")]
    return line


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
def test_capture_onto_the_kubeconfig_is_refused_before_connecting(api, kubeconfig, tmp_path, run_cli, kind):
    target = kubeconfig
    if kind != "same":
        target = tmp_path / f"{kind}.yaml"
        target.symlink_to(kubeconfig) if kind == "symlink" else os.link(kubeconfig, target)
    before = kubeconfig.read_bytes()
    line = _error_line(run_cli("capture", "-o", str(target)))
    assert "-o: is one of this command's inputs" in line
    assert kubeconfig.read_bytes() == before and api.requests == []


def test_capture_config_output_onto_the_snapshot_output_is_refused(api, kubeconfig, tmp_path, run_cli):
    out = tmp_path / "snap.yaml"
    line = _error_line(run_cli("capture", "-o", str(out), "--scheduler-config", "configmap/kube-system/x", "--config-output", str(out)))
    assert "--config-output: is also given to -o" in line and api.requests == [] and not out.exists()


def test_capture_into_a_device_is_refused(api, kubeconfig, run_cli, tmp_path):
    # as root a private node: a regression must not replace the machine's /dev/null
    device = "/dev/null"
    if os.geteuid() == 0:
        device = str(tmp_path / "null")
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    assert "a character device" in _error_line(run_cli("capture", "-o", device))
    assert api.requests == [] and stat.S_ISCHR(os.stat(device).st_mode)


def test_live_report_onto_the_kubeconfig_is_refused_before_the_capture(api, kubeconfig, run_cli):
    before = kubeconfig.read_bytes()
    line = _error_line(run_cli("schedule", "--live", "--report", str(kubeconfig)))
    assert "--report: is one of this command's inputs" in line
    assert kubeconfig.read_bytes() == before and api.requests == []
