"""Every ready profile in profiles/ validates with the real registry and schedules the example
cluster through `kschedctl schedule`, accounting for every pending pod."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROFILES = sorted((ROOT / "profiles").glob("*.yaml"))
EXAMPLE = str(ROOT / "examples" / "cluster.yaml")


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_profile_validates_and_schedules_the_example(profile, run_cli):
    validated = run_cli("validate", str(profile), "-o", "json")
    assert validated.exit_code == 0, validated.stdout
    out = run_cli("schedule", EXAMPLE, "--config", str(profile), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    s = data["summary"]
    assert s["pending"] == s["scheduled"] + s["unschedulable"] + s["skipped"] == 6
    # the GPU trainer can only go to the tainted GPU node, whatever the scoring strategy
    assert {p["pod"]: p["node"] for p in data["placements"]}.get("ml/trainer-0") == "ip-10-0-3-32"


def test_bin_packing_fills_the_busy_node_where_the_default_spreads(run_cli, write_snapshot):
    from kschedctl.testing import make_node, make_pod

    path = write_snapshot(
        make_node("busy").capacity(cpu="8", memory="16Gi"),
        make_node("idle").capacity(cpu="8", memory="16Gi"),
        make_pod("running").req(cpu="4", memory="8Gi").node("busy"),
        make_pod("new").req(cpu="1", memory="1Gi"),
    )
    spread = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    packed = run_cli("schedule", path, "--config", str(ROOT / "profiles" / "bin-packing.yaml"), "-o", "json", "--seed", "1").json()
    # LeastAllocated (default) prefers the idle node, MostAllocated the busy one.
    assert spread["placements"][0]["node"] == "idle"
    assert packed["placements"][0]["node"] == "busy"
