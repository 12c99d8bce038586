"""End-to-end `kschedctl schedule` and `explain` runs on snapshot files (contract: schedule -o json,
explain -o json, exit codes)."""

import json
from pathlib import Path

from kschedctl.testing import make_node, make_pod

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "cluster.yaml")


def _pending_keys(path):
    import yaml

    doc = yaml.safe_load(open(path))
    return {
        f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"
        for o in doc["items"]
        if o["kind"] == "Pod" and not o["spec"].get("nodeName")
    }


def test_example_accounts_for_every_pending_pod_once(run_cli):
    out = run_cli("schedule", EXAMPLE, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    listed = [p["pod"] for p in data["placements"]] + [u["pod"] for u in data["unschedulable"]] + [s["pod"] for s in data["skipped"]]
    assert sorted(listed) == sorted(_pending_keys(EXAMPLE))
    assert data["summary"]["pending"] == len(listed)


def test_same_seed_gives_byte_identical_output(run_cli):
    a = run_cli("schedule", EXAMPLE, "-o", "json", "--seed", "42").stdout
    b = run_cli("schedule", EXAMPLE, "-o", "json", "--seed", "42").stdout
    assert a == b


def test_pod_that_fits_nowhere_gets_kubes_message(run_cli, write_snapshot):
    path = write_snapshot(*[make_node(f"n{i}").capacity(cpu="2", memory="4Gi") for i in range(3)], make_pod("big").req(cpu="3"))
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    [u] = data["unschedulable"]
    assert u["pod"] == "default/big"
    assert u["reasons"] == {"Insufficient cpu": 3}
    assert u["message"].startswith("0/3 nodes are available: 3 Insufficient cpu.")


def test_fail_on_unschedulable_exits_3(run_cli, write_snapshot):
    path = write_snapshot(make_node("n1").capacity(cpu="1", memory="1Gi"), make_pod("big").req(cpu="3"))
    assert run_cli("schedule", path, "--fail-on-unschedulable").exit_code == 3
    assert run_cli("schedule", path).exit_code == 0


def test_table_output_lists_placements_and_messages(run_cli, write_snapshot):
    path = write_snapshot(make_node("n1").capacity(cpu="2", memory="4Gi"), make_pod("ok").req(cpu="1"), make_pod("big").req(cpu="3"))
    out = run_cli("schedule", path, "--seed", "1").stdout
    assert "default/ok" in out and "Scheduled" in out and "n1" in out
    assert "default/big: 0/1 nodes are available: 1 Insufficient cpu." in out


def test_malformed_snapshot_is_exit_2_and_one_line(run_cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: x\n")
    out = run_cli("schedule", str(bad))
    assert out.exit_code == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in out.stderr


def test_unknown_kube_version_is_exit_2(run_cli):
    out = run_cli("schedule", EXAMPLE, "--kube-version", "1.20")
    assert out.exit_code == 2
    assert "1.35, 1.36, 1.37" in out.stderr


def test_write_snapshot_chains_runs(run_cli, write_snapshot, tmp_path):
    path = write_snapshot(make_node("n1").capacity(cpu="4", memory="4Gi"), make_pod("a").req(cpu="1"))
    out_path = tmp_path / "next.yaml"
    first = run_cli("schedule", path, "--write-snapshot", str(out_path), "-o", "json", "--seed", "1").json()
    assert first["placements"][0]["node"] == "n1"
    second = run_cli("schedule", str(out_path), "-o", "json").json()
    assert second["summary"]["pending"] == 0  # the pod is bound in the written snapshot


def test_explain_json_shows_every_node(run_cli, write_snapshot):
    path = write_snapshot(
        make_node("small").capacity(cpu="1", memory="4Gi"),
        make_node("big").capacity(cpu="8", memory="16Gi"),
        make_pod("web").req(cpu="2", memory="1Gi"),
    )
    out = run_cli("explain", "default/web", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["node"] == "big" and data["message"] is None
    assert data["nodes"]["small"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "NodeResourcesFit",
        "reasons": ["Insufficient cpu"],
    }
    big = data["nodes"]["big"]
    assert big["filter"] == {"code": "Success"}
    assert big["total"] == sum(s["score"] * s["weight"] for s in big["scores"].values())
    assert big["scores"]["TaintToleration"] == {"score": 100, "weight": 3}


def test_explain_unknown_pod_is_exit_2(run_cli, write_snapshot):
    path = write_snapshot(make_node("n1"))
    out = run_cli("explain", "default/nope", path)
    assert out.exit_code == 2 and "default/nope" in out.stderr


def test_explain_table(run_cli, write_snapshot):
    path = write_snapshot(make_node("n1").capacity(cpu="1", memory="1Gi"), make_pod("big").req(cpu="3"))
    out = run_cli("explain", "big", path)
    assert "unschedulable: 0/1 nodes are available: 1 Insufficient cpu." in out.stdout
    _ = json
