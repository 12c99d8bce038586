"""CI integrations: the pre-commit hook, the krew manifest and launcher, the README's CI snippets."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"
BAD_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: NoSuchPlugin
"""


def _hook() -> dict:
    [hook] = yaml.safe_load(HOOKS.read_text())
    return hook


def test_hook_manifest_has_what_pre_commit_requires():
    """pre-commit's manifest schema (pre_commit/clientlib.py MANIFEST_HOOK_DICT): id, name, entry,
    language required; files a regex; types known to identify."""
    hook = _hook()
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["id"] == "kschedctl-validate" and hook["language"] == "python"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert hook["entry"].split()[0] in scripts  # a console script of this package
    assert hook["entry"].split()[1] == "validate"
    assert hook["types"] == ["yaml"]
    try:  # pre-commit's own check, where pre-commit is installed
        from pre_commit.clientlib import load_manifest
    except ImportError:
        return
    load_manifest(str(HOOKS))


@pytest.mark.parametrize(
    "path, matched",
    [
        ("kube-scheduler.yaml", True),
        ("deploy/kube-scheduler-config.yaml", True),
        ("kubescheduler.yml", True),
        ("manifests/scheduler-config.yaml", True),
        ("deploy/app.yaml", False),
        ("scheduler/values.yaml", False),
        ("kube-scheduler.json", False),
    ],
    ids=lambda v: str(v),
)
def test_hook_default_files_pattern(path, matched):
    assert bool(re.search(_hook()["files"], path)) is matched


def test_hook_entry_on_files_as_pre_commit_passes_them(tmp_path, run_cli):
    """pre-commit appends the changed files to the entry: exit 0 when all are valid, 1 otherwise."""
    good, bad = tmp_path / "kube-scheduler.yaml", tmp_path / "scheduler-bad.yaml"
    good.write_text((ROOT / "profiles" / "bin-packing.yaml").read_text())
    bad.write_text(BAD_CONFIG)
    args = _hook()["entry"].split()[1:]
    assert run_cli(*args, str(good)).exit_code == 0
    result = run_cli(*args, str(good), str(bad))
    assert result.exit_code == 1
    assert 'Not found: "NoSuchPlugin"' in result.stdout


@pytest.mark.skipif(
    not os.environ.get("KSCHEDCTL_SLOW_TESTS") or shutil.which("pre-commit") is None or shutil.which("git") is None,
    reason="slow (installs the package): set KSCHEDCTL_SLOW_TESTS=1",
)
def test_pre_commit_try_repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "deploy").mkdir(parents=True)
    (repo / "deploy" / "kube-scheduler.yaml").write_text((ROOT / "profiles" / "bin-packing.yaml").read_text())
    (repo / "deploy" / "scheduler-bad.yaml").write_text(BAD_CONFIG)
    (repo / "deploy" / "app.yaml").write_text("kind: ConfigMap\n")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=repo, check=True)
    proc = subprocess.run(
        ["pre-commit", "try-repo", str(ROOT), "kschedctl-validate", "--all-files"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc")},
        timeout=600,
    )
    assert proc.returncode == 1
    assert "deploy/kube-scheduler.yaml: valid" in proc.stdout
    assert "deploy/scheduler-bad.yaml: invalid" in proc.stdout
    assert "app.yaml" not in proc.stdout


def test_krew_manifest_shape():
    """krew's Plugin manifest (krew.googlecontainertools.github.com/v1alpha2): the fields krew validates."""
    doc = yaml.safe_load((ROOT / "packaging" / "krew" / "ksched.yaml").read_text())
    assert doc["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2" and doc["kind"] == "Plugin"
    assert doc["metadata"]["name"] == "ksched"
    spec = doc["spec"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", spec["version"])
    assert spec["shortDescription"] and "pip install 'kschedctl[cluster]'" in spec["caveats"]
    for platform in spec["platforms"]:
        assert platform["bin"] == "kubectl-ksched"
        assert re.fullmatch(r"[0-9a-f]{64}", platform["sha256"])
        assert platform["uri"].startswith("https://") and platform["selector"]["matchExpressions"]
        assert [f["from"] for f in platform["files"]] == ["kubectl-ksched"]


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh")
def test_krew_launcher_runs_the_installed_plugin():
    launcher = ROOT / "packaging" / "krew" / "kubectl-ksched"
    proc = subprocess.run(
        ["sh", str(launcher), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "KSCHED_PYTHON": sys.executable, "COLUMNS": "120"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "kubectl ksched" in proc.stdout


def test_readme_ci_snippets_parse_and_use_real_commands():
    """The README's GitHub Actions and pre-commit snippets are valid YAML naming real commands and hooks."""
    readme = (ROOT / "README.md").read_text()
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", readme, re.S)]
    workflow = next(b for b in blocks if isinstance(b, dict) and "jobs" in b)
    runs = [s["run"] for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    commands = {line.split()[1] for run in runs for line in run.splitlines() if line.startswith("kschedctl ")}
    assert commands and commands <= {"validate", "schedule", "explain", "capture"}
    config = next(b for b in blocks if isinstance(b, dict) and "repos" in b)
    assert [h["id"] for r in config["repos"] for h in r["hooks"]] == [_hook()["id"]]
