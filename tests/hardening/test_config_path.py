"""One config path: schedule, explain and simulate run exactly the checks `validate` runs, with the
same messages; kube's v1 rules on an empty schedulerName; malformed configurations are findings
(exit 1 from validate), never internal errors. Ids name the failure classes of issue 12.
"""

from __future__ import annotations

import pytest

from kschedctl.testing import make_node, make_pod

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
PROFILE = "profiles:\n- schedulerName: default-scheduler\n"

# (id, config body, finding path, finding message, line)
BROKEN = [
    (
        "args-typo-ignored-by-schedule",
        PROFILE + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStratgy: {type: MostAllocated}\n",
        "profiles[0].pluginConfig[0].args.scoringStratgy",
        'unknown field "scoringStratgy" (did you mean "scoringStrategy"?)',
        8,
    ),
    ("empty-scheduler-name", "profiles:\n- schedulerName: ''\n", "profiles[0].schedulerName", "Required value", 4),
    ("profiles-7", "profiles: 7\n", "profiles", "Invalid value: 7: must be a list", 3),
    (
        "weight-minus-1e30",
        PROFILE + "  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: -1.0e+30\n",
        "profiles[0].plugins.score.enabled[0].weight",
        "Invalid value: -1e+30: out of range, must be >= -2147483648",
        9,
    ),
    ("int-yaml-key-is-a-string", "1: x\n" + PROFILE, "1", 'unknown field "1"', 3),
    (
        "alias-bomb-in-args",
        PROFILE
        + "  pluginConfig:\n  - name: NodeAffinity\n    args: {a: &a [1,1,1,1,1,1,1,1,1,1],"
        + "".join(f" {c}: &{c} [" + ",".join([f"*{p}"] * 10) + "]," for p, c in zip("abcdefg", "bcdefgh"))
        + " z: *h}\n",
        "",
        "document contains excessive aliasing",
        7,
    ),
    ("set-tag", PROFILE + "  pluginConfig: !!set {a}\n", "", "unsupported YAML tag !!set (only JSON types are accepted)", 5),
]


@pytest.mark.parametrize("body,path,message,line", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_validate_and_schedule_give_the_same_verdict(run_cli, write_snapshot, tmp_path, body, path, message, line):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(HEAD + body)
    validated = run_cli("validate", str(cfg))
    assert validated.exit_code == 1
    where = f"{cfg}:{line}: error: " + (f"{path}: " if path else "")
    assert validated.stdout.splitlines()[0] == where + message
    snap = write_snapshot(make_node("n1").capacity(cpu="4", memory="4Gi", pods=10), make_pod("a").req(cpu="1"))
    for command in (["schedule", snap], ["explain", "default/a", snap]):
        out = run_cli(*command, "--config", str(cfg))
        assert out.exit_code == 2
        prefix = f"error: {cfg}:{line}: KubeSchedulerConfiguration: " + (f"{path}: " if path else "")
        assert out.stderr.strip() == prefix + message


def test_simulate_runs_the_same_checks(run_cli, tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(HEAD + "profiles:\n- schedulerName: ''\n")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nevents: []\n")
    out = run_cli("simulate", str(scenario), "--config", str(cfg))
    assert out.exit_code == 2 and out.stderr.strip().endswith("profiles[0].schedulerName: Required value")


def test_absent_scheduler_name_is_defaulted(run_cli, tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(HEAD + "profiles:\n- plugins: {}\n")
    assert run_cli("validate", str(cfg)).exit_code == 0


def test_negative_added_affinity_weight_is_accepted_with_a_warning_and_fails_pods_as_kube_does(run_cli, write_snapshot, tmp_path):
    """kube-scheduler 1.35.4 accepts this configuration (ValidateNodeAffinityArgs only parses the
    terms); every pod then fails: kschedoracle -mode explain on n1, n2 and one 1-cpu pod gave
    `plugin "NodeAffinity" returns an invalid score -1, it should in the range of [0, 100] after
    normalizing` (with "applying score defaultWeights on Score plugins: " before it)."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        HEAD + PROFILE + "  pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n"
        "        preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: -1\n"
        "          preference: {matchExpressions: [{key: a, operator: Exists}]}\n"
    )
    validated = run_cli("validate", str(cfg))
    assert validated.exit_code == 0 and ": warning: " in validated.stdout and "invalid score" in validated.stdout
    snap = write_snapshot(
        make_node("n1").label("a", "1").capacity(cpu="4", memory="4Gi", pods=10),
        make_node("n2").label("a", "2").capacity(cpu="4", memory="4Gi", pods=10),
        make_pod("p").req(cpu="1"),
    )
    out = run_cli("schedule", snap, "--config", str(cfg), "-o", "json", "--kube-version", "1.35")
    assert out.exit_code == 0 and out.stderr.startswith("warning: ")
    [u] = out.json()["unschedulable"]
    assert u["message"].endswith('plugin "NodeAffinity" returns an invalid score -1, it should in the range of [0, 100] after normalizing')
