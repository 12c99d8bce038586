"""kubectl-ksched: kubectl's flags become kschedctl's; run through a real kubectl where installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_apiserver import FakeApiServer

from kschedctl.cli.kubectl_plugin import KubectlFlags, main, translate


def _ns(flags: KubectlFlags) -> str:
    return "ctx-ns"  # the kubeconfig context's namespace


@pytest.mark.parametrize(
    "args, expected",
    [
        (["explain", "api-0", "-n", "shop"], ["explain", "shop/api-0", "--live"]),
        (["explain", "api-0", "--namespace=shop", "-o", "json"], ["explain", "shop/api-0", "-o", "json", "--live"]),
        (["explain", "-nshop", "api-0"], ["explain", "shop/api-0", "--live"]),
        (["explain", "api-0"], ["explain", "ctx-ns/api-0", "--live"]),
        (["explain", "other/api-0", "-n", "shop"], ["explain", "other/api-0", "--live"]),
        (["explain", "podgroup/train", "-n", "ml"], ["explain", "podgroup/ml/train", "--live"]),
        (["explain", "api-0", "snap.yaml", "-n", "shop"], ["explain", "shop/api-0", "snap.yaml"]),
        (
            ["explain", "--seed", "3", "api-0", "--context", "prod"],
            ["explain", "--seed", "3", "ctx-ns/api-0", "--context", "prod", "--live"],
        ),
        (["schedule", "--pending", "-A"], ["schedule", "--live"]),
        (["schedule", "--all-namespaces", "-o", "wide"], ["schedule", "-o", "wide", "--live"]),
        (["schedule", "-n", "shop", "--kubeconfig", "k"], ["schedule", "--namespace", "shop", "--kubeconfig", "k", "--live"]),
        (["schedule"], ["schedule", "--namespace", "ctx-ns", "--live"]),
        (["schedule", "snap.yaml", "-A"], ["schedule", "snap.yaml"]),
        (["capture", "-o", "s.yaml", "--context", "prod", "-A"], ["capture", "-o", "s.yaml", "--context", "prod"]),
        (["validate", "cfg.yaml"], ["validate", "cfg.yaml"]),
        (["--help"], ["--help"]),
    ],
    ids=[
        "explain-n",
        "explain-namespace=",
        "explain-nNS",
        "explain-context-namespace",
        "explain-qualified",
        "explain-podgroup",
        "explain-files",
        "explain-context",
        "schedule-pending-A",
        "schedule-all-namespaces",
        "schedule-n-kubeconfig",
        "schedule-context-namespace",
        "schedule-files",
        "capture",
        "validate",
        "help",
    ],
)
def test_kubectl_habits_become_kschedctl_flags(args, expected):
    assert translate(args, _ns) == expected


def test_explain_across_all_namespaces_is_kubectls_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "api-0", "-A"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "error: a resource cannot be retrieved by name across all namespaces\n"


def test_plugin_entry_point_reads_the_cluster(api, kubeconfig, capsys):
    """`kubectl ksched explain POD -n NS` as kubectl would run it: the console script's main()."""
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "db-0", "-n", "shop", "-o", "json"])
    assert exit_.value.code == 0
    assert '"node": "ip-10-0-2-21"' in capsys.readouterr().out


def _plugin_dir() -> Path | None:
    """Where the installed kubectl-ksched console script is (beside this Python's kschedctl)."""
    for candidate in (Path(sys.executable).parent / "kubectl-ksched", shutil.which("kubectl-ksched")):
        if candidate and Path(candidate).exists():
            return Path(candidate).parent
    return None


@pytest.mark.skipif(
    shutil.which("kubectl") is None or shutil.which("openssl") is None or _plugin_dir() is None,
    reason="needs kubectl, openssl (kubectl sends tokens over TLS only) and the installed console script",
)
def test_through_a_real_kubectl(tmp_path, run_cli):
    """kubectl finds kubectl-ksched on PATH and passes its flags: the same answers as kschedctl's."""
    from conftest import demo_objects

    tls = tmp_path / "tls"
    tls.mkdir()
    server = FakeApiServer(demo_objects(), tls_dir=tls).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc", context="fake-prod")
        env = {
            **os.environ,
            "KUBECONFIG": str(kc),
            "HOME": str(tmp_path),
            "PATH": f"{_plugin_dir()}{os.pathsep}{os.environ.get('PATH', '')}",
        }

        def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["kubectl", *args], env=env, capture_output=True, text=True, timeout=120)

        listed = kubectl("plugin", "list")
        assert "kubectl-ksched" in listed.stdout
        explained = kubectl("ksched", "explain", "db-0", "-n", "shop", "-o", "json")
        scheduled = kubectl("ksched", "schedule", "--pending", "-A", "-o", "json", "--seed", "1")
        os.environ["KUBECONFIG"] = str(kc)
        try:
            direct_explain = run_cli("explain", "shop/db-0", "--live", "-o", "json")
            direct_schedule = run_cli("schedule", "--live", "-o", "json", "--seed", "1")
        finally:
            del os.environ["KUBECONFIG"]
    finally:
        server.stop()
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout == direct_explain.stdout
    assert scheduled.returncode == 0, scheduled.stderr
    assert scheduled.stdout == direct_schedule.stdout
