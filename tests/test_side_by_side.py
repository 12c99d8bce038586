"""The side-by-side harness (benchmarks/side_by_side.py, perf_config.py) without the oracle binary:
the scheduler_perf-shaped files are input kschedctl admits and places entirely, the
PreemptionBasic shape really preempts (as kube-scheduler 1.35.4 did on the same file), and the
ratio table and the comparisons come out right from given measurements.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import perf_config  # noqa: E402
import side_by_side  # noqa: E402
from perf_config import Case  # noqa: E402
from side_by_side import ProcessRun, Row, Side  # noqa: E402

# Small instances of every shape, sized so that every pending pod fits.
TINY = [
    Case("SchedulingBasic", 6, 4, 8, "tiny"),
    Case("SchedulingNodeAffinity", 6, 3, 3, "tiny"),
    Case("SchedulingPodAntiAffinity", 10, 2, 6, "tiny"),
    Case("TopologySpreading", 6, 6, 6, "tiny"),
    Case("PreferredTopologySpreading", 6, 6, 6, "tiny"),
    Case("SchedulingPodAffinity", 5, 5, 10, "tiny"),
    Case("SchedulingPreferredPodAffinity", 5, 5, 10, "tiny"),
    Case("SchedulingPreferredPodAntiAffinity", 5, 5, 10, "tiny"),
    Case("SchedulingRequiredPodAntiAffinityWithNSSelector", 10, 4, 6, "tiny", namespaces=2),
    Case("SchedulingPreferredAntiAffinityWithNSSelector", 10, 4, 10, "tiny", namespaces=2),
    Case("SchedulingRequiredPodAffinityWithNSSelector", 10, 4, 10, "tiny", namespaces=2),
    Case("SchedulingPreferredAffinityWithNSSelector", 10, 4, 10, "tiny", namespaces=2),
    Case("MixedSchedulingBasePod", 5, 10, 10, "tiny"),
    Case("SchedulingInTreePVs", 5, 5, 10, "tiny"),
    Case("SchedulingMigratedInTreePVs", 5, 5, 10, "tiny"),
    Case("SchedulingCSIPVs", 5, 5, 10, "tiny"),
    Case("SchedulingDaemonset", 5, 0, 10, "tiny"),
]


@pytest.mark.parametrize("case", TINY, ids=[c.shape for c in TINY])
def test_every_shape_is_input_kschedctl_places_entirely(case: Case, tmp_path: Path, run_cli) -> None:
    path = perf_config.write(case, tmp_path)
    result = run_cli(
        "schedule", str(path), "--config", str(tmp_path / "config.yaml"), "-o", "json", "--kube-version", "1.35", "--seed", "1"
    )
    assert result.exit_code == 0, result.stderr
    summary = result.json()["summary"]
    assert summary["pending"] == case.init + case.measure  # init pods pending too: kube's warmup
    assert summary["scheduled"] == summary["pending"]
    assert case.warmup == case.init


def test_every_case_of_the_tables_is_a_known_shape_with_a_unique_name() -> None:
    cases = perf_config.ALL_CASES + perf_config.QUICK_CASES
    assert {c.shape for c in cases} == set(perf_config.SHAPES)
    assert len({c.name for c in cases}) == len(cases)
    for case in cases:
        if perf_config.SHAPES[case.shape].ns_selector:
            assert case.namespaces and case.init % case.namespaces == 0
        if perf_config.SHAPES[case.shape].init_mix:
            assert case.init % len(perf_config.SHAPES[case.shape].init_mix) == 0


def test_daemonset_pods_all_go_to_the_named_node(tmp_path: Path, run_cli) -> None:
    """SchedulingDaemonset: every pod requires metadata.name=scheduler-perf-node (matchFields)."""
    path = perf_config.write(Case("SchedulingDaemonset", 5, 0, 10, "tiny"), tmp_path)
    result = run_cli("schedule", str(path), "-o", "json", "--kube-version", "1.35")
    assert {p["node"] for p in result.json()["placements"]} == {perf_config.NAMED_NODE}


def test_volume_shapes_bind_one_pv_and_pvc_per_pod(tmp_path: Path) -> None:
    """CreatePodWithPersistentVolume: PV <ns>-vol-<i> bound to pvc-<i>, the pod's only volume."""
    objs = perf_config.objects(Case("SchedulingCSIPVs", 3, 2, 3, "tiny"))
    kinds = [o["kind"] for o in objs]
    assert kinds.count("CSINode") == 3 and kinds.count("PersistentVolume") == kinds.count("PersistentVolumeClaim") == 5
    pvs = {o["metadata"]["name"]: o for o in objs if o["kind"] == "PersistentVolume"}
    for pod in (o for o in objs if o["kind"] == "Pod"):
        claim = pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
        pv = pvs[f"{pod['metadata']['namespace']}-vol-{claim.removeprefix('pvc-')}"]
        assert pv["spec"]["claimRef"]["name"] == claim and pv["spec"]["csi"]["volumeHandle"] == pv["metadata"]["name"]


def test_unschedulable_shape_leaves_only_the_churn_pods_pending(tmp_path: Path, run_cli) -> None:
    case = Case("Unschedulable", 5, 1, 10, "tiny", churn=2)
    path = perf_config.write(case, tmp_path)
    result = run_cli("schedule", str(path), "-o", "json", "--kube-version", "1.35", "--seed", "1")
    summary = result.json()["summary"]
    assert (summary["pending"], summary["scheduled"], summary["unschedulable"]) == (13, 11, 2)
    assert case.schedulable == 11


def test_node_affinity_shape_uses_only_zone1_nodes(tmp_path: Path, run_cli) -> None:
    """scheduler_perf labels nodes round-robin with zone1 only; pods require zone1 or zone2."""
    case = TINY[1]
    path = perf_config.write(case, tmp_path)
    nodes = [o for o in perf_config.objects(case) if o["kind"] == "Node"]
    assert {n["metadata"]["labels"][perf_config.ZONE] for n in nodes} == {"zone1"}
    result = run_cli("schedule", str(path), "-o", "json")
    assert {p["node"] for p in result.json()["placements"]} <= {n["metadata"]["name"] for n in nodes}


def test_files_are_deterministic_and_one_object_per_line(tmp_path: Path) -> None:
    case = TINY[0]
    first = perf_config.write(case, tmp_path / "a").read_text()
    second = perf_config.write(case, tmp_path / "b").read_text()
    assert first == second
    doc = json.loads(first)
    assert doc["kind"] == "List"
    assert len(first.splitlines()) == len(doc["items"]) + 2
    names = [o["metadata"]["name"] for o in doc["items"] if o["kind"] == "Node"]
    assert names == sorted(names) and all(n.startswith("scheduler-perf-") and len(n) == 20 for n in names)


PREEMPTION = Case("PreemptionBasic", 10, 40, 10, "PreemptionBasic/5Nodes scaled x2")


def test_preemption_shape_preempts_three_low_priority_pods_per_preemptor(tmp_path: Path, run_cli) -> None:
    """Four 900m pods fill each 4-cpu node; a 3000m priority-10 pod needs three of them gone.

    Recorded from kschedoracle -mode sequential (kube-scheduler 1.35.4) on this very file
    (perf_config.write(PREEMPTION)): preemptor pod-0000k is nominated on the k-th node from the
    end of the sorted node list, with victims init-000(10+j), (20+j), (30+j) of that node's j
    (init-0000j, started first, is reprieved), then bound there on its retry. The node order
    is pickOneNodeForPreemption's last criterion (pkg/scheduler/framework/preemption/
    preemption.go): the latest start time of a node's earliest-started victim.
    """
    path = perf_config.write(PREEMPTION, tmp_path)
    result = run_cli(
        "schedule", str(path), "--config", str(tmp_path / "config.yaml"), "-o", "json", "--kube-version", "1.35", "--seed", "1"
    )
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    names = sorted(o["metadata"]["name"] for o in perf_config.objects(PREEMPTION) if o["kind"] == "Node")
    expected = {}
    for k in range(10):
        j = 9 - k
        expected[f"namespace-2/pod-{k:05d}"] = (names[j], [f"namespace-1/init-{i * 10 + j:05d}" for i in (1, 2, 3)])
    got = {p["preemptor"]: (p["node"], sorted(p["victims"])) for p in doc["preemptions"]}
    assert got == expected
    assert {p["pod"]: p["node"] for p in doc["placements"]} == {pod: node for pod, (node, _) in expected.items()}
    assert doc["summary"]["preempted"] == 30
    assert PREEMPTION.warmup == 0  # the low-priority pods are bound in the file


def test_preemption_comparison_counts_victims_and_nodes() -> None:
    sequential = {
        "pods": [
            {"pod": "ns/high-0", "node": None, "preemption": {"nominatedNode": "n1", "victims": ["ns/a", "ns/b"]}},
            {"pod": "ns/high-1", "node": None, "preemption": {"nominatedNode": "n2", "victims": ["ns/c"]}},
            {"pod": "ns/high-0", "node": "n1"},
            {"pod": "ns/high-1", "node": "n2"},
        ]
    }
    ours = {
        "preemptions": [
            {"preemptor": "ns/high-0", "node": "n1", "victims": ["ns/b", "ns/a"]},
            {"preemptor": "ns/high-1", "node": "n3", "victims": ["ns/d"]},
        ],
        "placements": [{"pod": "ns/high-0", "node": "n1"}, {"pod": "ns/high-1", "node": "n3"}],
    }
    assert side_by_side.compare_preemption(sequential, ours) == {
        "preemptors": [2, 2],
        "victims": [3, 3],
        "same_nominated_node_and_victims": 1,
        "placed": [2, 2],
        "same_node": 1,
    }


def _side(wall: float, rss: float, placements: dict[str, str], pending: int) -> Side:
    return Side(runs=[ProcessRun(wall, rss, 0)], placed=len(placements), pending=pending, placements=placements)


def test_table_from_given_measurements() -> None:
    case = Case("SchedulingBasic", 5000, 1000, 10000, "fake")
    kube = _side(12.5, 512.4, {"a": "n1", "b": "n2", "c": "n1"}, 3)
    ours = _side(25.0, 1024.0, {"a": "n1", "b": "n1", "c": "n2"}, 3)
    kube.runs[0].cpu_s, ours.runs[0].cpu_s = 20.0, 10.0
    row = Row(case, kube, ours)
    side_by_side.compare(row)
    assert (row.same_node, row.compared, row.same_load) == (1, 3, True)
    alone = Row(Case("PreemptionBasic", 1000, 4000, 1000, "fake"), None, _side(3.0, 100.0, {"x": "n"}, 1))
    assert side_by_side.table([row, alone]).splitlines() == [
        "| workload (nodes, init + measured pods) | kube-scheduler 1.35.4 | kschedctl | ratio kube/kschedctl "
        "| CPU kube / kschedctl (ratio) | peak RSS kube / kschedctl | placed kube · kschedctl | same node |",
        "|---|---|---|---|---|---|---|---|",
        "| SchedulingBasic (5,000 nodes, 1,000 + 10,000 pods) | 12.50 s | 25.00 s | 0.50x | 20.00 / 10.00 s (2.00x) "
        "| 512 / 1024 MiB | 3/3 · 3/3 | 1/3, same load |",
        "| PreemptionBasic (1,000 nodes, 4,000 + 1,000 pods) | — | 3.00 s | — | — / — s (—) | — / 100 MiB | 1/1 | — |",
    ]


def test_problems_name_unplaced_pods_and_failures() -> None:
    case = Case("SchedulingBasic", 10, 0, 2, "fake")
    short = Row(case, _side(1.0, 1.0, {"a": "n"}, 2), _side(1.0, 1.0, {"a": "n", "b": "n"}, 2))
    failed = Row(case, None, Side(runs=[ProcessRun(1.0, 1.0, 2, "error: bad input")]))
    preempt = Row(PREEMPTION, _side(1.0, 1.0, {}, 10), _side(1.0, 1.0, {str(i): "n" for i in range(10)}, 10))
    churn = Row(Case("Unschedulable", 5, 0, 2, "fake", churn=1), None, _side(1.0, 1.0, {"a": "n", "b": "n"}, 3))
    assert side_by_side.problems([short, failed, preempt, churn]) == [
        f"{case.name}: kube placed 1 of 2 pending pods",
        f"{case.name}: kschedctl failed: error: bad input",
    ]


def test_measure_reports_the_childs_own_time_and_rss(tmp_path: Path) -> None:
    run = side_by_side.measure([sys.executable, "-c", "print('x' * 3)"], tmp_path / "out")
    assert run.returncode == 0 and run.wall_s > 0 and run.peak_rss_mib > 1
    assert run.cpu_s is not None and 0 < run.cpu_s < 10 * run.wall_s
    assert run.sys_s is not None and 0 <= run.sys_s <= run.cpu_s
    assert (tmp_path / "out").read_text() == "xxx\n"


def test_measure_counts_the_page_faults_of_what_the_child_touches(tmp_path: Path) -> None:
    """Touching 64 MiB more shows in the child's minor faults (16,384 with 4 KiB pages; some 32
    where the kernel gives huge pages to every mapping)."""
    small = side_by_side.measure([sys.executable, "-c", "pass"], tmp_path / "a")
    large = side_by_side.measure(
        [sys.executable, "-c", "b = bytearray(64 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1"], tmp_path / "b"
    )
    assert small.minor_faults is not None and large.minor_faults is not None
    assert small.minor_faults > 0 and large.minor_faults - small.minor_faults >= 16


def test_kube_command_is_the_oracle_bench_of_the_readme() -> None:
    cmd = side_by_side.kube_command("/bin/kschedoracle", Path("f.json"), Path("c.yaml"), 500, Path("p.json"))
    assert cmd == [
        "/bin/kschedoracle",
        "-mode",
        "bench",
        "-snapshot",
        "f.json",
        "-config",
        "c.yaml",
        "-warmup",
        "500",
        "-parallelism",
        "2",
        "-bench-placements",
        "p.json",
    ]


def test_the_final_cases_are_the_issue_s_workloads() -> None:
    assert [(c.shape, c.nodes, c.init, c.measure) for c in perf_config.CASES] == [
        ("SchedulingBasic", 500, 500, 1000),
        ("SchedulingBasic", 5000, 1000, 10000),
        ("SchedulingBasic", 15000, 1000, 10000),
        ("SchedulingBasic", 5000, 5000, 50000),
        ("SchedulingNodeAffinity", 5000, 5000, 10000),
        ("SchedulingPodAntiAffinity", 5000, 1000, 2000),
        ("TopologySpreading", 5000, 5000, 5000),
        ("PreferredTopologySpreading", 5000, 5000, 5000),
        ("PreemptionBasic", 1000, 4000, 1000),
    ]
    # every other workload of the issue that a snapshot file expresses, at 500 nodes and large
    more = {(c.shape, c.nodes) for c in perf_config.MORE_CASES}
    for shape in set(perf_config.SHAPES) - {"SchedulingBasic", "PreemptionBasic"}:
        assert any(s == shape and n <= 500 for s, n in more), shape
        # dra/performance-config.yaml's largest workloads have 500 nodes
        large = 500 if perf_config.SHAPES[shape].family == "dra" else 1000
        assert any(s == shape and n >= large for s, n in more | {(c.shape, c.nodes) for c in perf_config.CASES}), shape


# --- the DRA, gang and mixed-churn families -----------------------------------------------------

DRA = Case("SchedulingWithResourceClaimTemplate", 3, 4, 5, "tiny", claims_per_node=3)
STEADY = Case("SteadyStateClusterResourceClaimTemplate", 3, 5, 4, "tiny", claims_per_node=3)
GANG = Case("GangScheduling", 4, 0, 9, "tiny", pods_per_group=3)
CHURN = Case("SchedulingWithMixedChurn", 4, 0, 6, "tiny", churn=2)


def _schedule(run_cli, case: Case, tmp_path: Path) -> dict:
    path = perf_config.write(case, tmp_path)
    command = side_by_side.ksched_command(path, tmp_path / "config.yaml", case.feature_gates)
    result = run_cli(*command[3:])  # without `python -m kschedctl`
    assert result.exit_code == 0, result.stderr
    return result.json()


def test_dra_files_hold_what_the_resourceclaim_controller_writes() -> None:
    """kube-scheduler never reads the template: each pod (with its uid) names its claim in
    status.resourceClaimStatuses, the claim is controlled by that pod; one slice per node."""
    objs = perf_config.objects(DRA)
    by_kind: dict[str, list[dict]] = {}
    for o in objs:
        by_kind.setdefault(o["kind"], []).append(o)
    assert len(by_kind["ResourceSlice"]) == 3 and all(len(s["spec"]["devices"]) == 3 for s in by_kind["ResourceSlice"])
    assert [s["spec"]["nodeName"] for s in by_kind["ResourceSlice"]] == [n["metadata"]["name"] for n in by_kind["Node"]]
    claims = {(c["metadata"]["namespace"], c["metadata"]["name"]): c for c in by_kind["ResourceClaim"]}
    assert len(by_kind["Pod"]) == len(claims) == 9
    for pod in by_kind["Pod"]:
        (status,) = pod["status"]["resourceClaimStatuses"]
        claim = claims[(pod["metadata"]["namespace"], status["resourceClaimName"])]
        (owner,) = claim["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
            "Pod",
            pod["metadata"]["name"],
            pod["metadata"]["uid"],
            True,
        )
        assert claim["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] == status["name"] == "resource"
    assert DRA.warmup == 4 and STEADY.warmup == 0  # the steady state's init count is claims


def test_steady_state_claims_are_allocated_within_each_node_s_devices() -> None:
    claims = [o for o in perf_config.objects(STEADY) if o["kind"] == "ResourceClaim" and o.get("status") and o.get("status")]
    assert len(claims) == 5
    devices = [(r["pool"], r["device"]) for c in claims for r in c["status"]["allocation"]["devices"]["results"]]
    assert len(set(devices)) == 5 and all(int(d.removeprefix("instance-")) < 3 for _, d in devices)
    for c in claims:
        (term,) = c["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"]
        assert term["matchFields"][0]["values"] == [c["status"]["allocation"]["devices"]["results"][0]["pool"]]


@pytest.mark.parametrize("case", [DRA, STEADY], ids=["claim-template", "steady-state"])
def test_dra_shapes_place_every_pod_within_the_devices(case: Case, tmp_path: Path, run_cli) -> None:
    doc = _schedule(run_cli, case, tmp_path)
    assert doc["summary"]["scheduled"] == doc["summary"]["pending"] == case.schedulable
    placements = {p["pod"]: p["node"] for p in doc["placements"]}
    assert side_by_side.device_overruns(tmp_path / f"{case.name}.json", placements, case.claims_per_node) == 0


def test_device_overruns_count_allocated_claims_and_placements(tmp_path: Path) -> None:
    path = perf_config.write(STEADY, tmp_path)
    pools = [
        o["status"]["allocation"]["devices"]["results"][0]["pool"]
        for o in perf_config.objects(STEADY)
        if o["kind"] == "ResourceClaim" and o.get("status")
    ]
    full = max(set(pools), key=pools.count)
    spare = STEADY.claims_per_node - pools.count(full)
    assert side_by_side.device_overruns(path, {f"p{i}": full for i in range(spare)}, STEADY.claims_per_node) == 0
    assert side_by_side.device_overruns(path, {f"p{i}": full for i in range(spare + 1)}, STEADY.claims_per_node) == 1


def test_gang_shape_is_1_35_workloads_run_with_the_gang_gates(tmp_path: Path, run_cli) -> None:
    objs = perf_config.objects(GANG)
    workloads = [o for o in objs if o["kind"] == "Workload"]
    assert [w["spec"]["podGroups"] for w in workloads] == [[{"name": "gang", "policy": {"gang": {"minCount": 3}}}]] * 3
    refs = [o["spec"]["workloadRef"] for o in objs if o["kind"] == "Pod"]
    assert refs[3] == {"name": "gang-1", "podGroup": "gang"}
    assert GANG.feature_gates == "GenericWorkload=true,GangScheduling=true"
    assert GANG.name.endswith("_3PerGroup")
    assert _schedule(run_cli, GANG, tmp_path)["summary"]["scheduled"] == 9


def test_gang_gates_reach_both_commands() -> None:
    kube = side_by_side.kube_command("/o", Path("f.json"), Path("c.yaml"), 0, Path("p.json"), GANG.feature_gates)
    assert kube[-2:] == ["-feature-gates", "GenericWorkload=true,GangScheduling=true"]
    ours = side_by_side.ksched_command(Path("f.json"), Path("c.yaml"), GANG.feature_gates)
    assert ours[-2:] == ["--feature-gates", "GenericWorkload=true,GangScheduling=true"]


def test_mixed_churn_runs_as_a_simulate_timeline(tmp_path: Path, run_cli) -> None:
    """kschedctl simulates the recreate churn (a node and a never-schedulable 9-cpu pod each
    second); every measured pod is placed, the churn pods are the only ones left pending."""
    path = perf_config.write(CHURN, tmp_path)
    scenario = tmp_path / f"{CHURN.name}.scenario.json"
    command = side_by_side.ksched_command(path, tmp_path / "config.yaml", "", scenario)
    assert command[3:5] == ["simulate", str(scenario)]
    result = run_cli(*command[3:])
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert {p["pod"] for p in doc["placements"]} == {f"namespace-2/pod-{i:05d}" for i in range(6)}
    assert {u["pod"] for u in doc["unschedulable"]} <= {"namespace-1/churn-pod-0", "namespace-1/churn-pod-1"}
    events = [(e["time"], e["event"]) for e in doc["events"] if e["event"] in ("NodeAdded", "NodeRemoved")]
    assert events == [(1, "NodeAdded"), (2, "NodeRemoved"), (2, "NodeAdded")]
    ours = _side(1.0, 50.0, {p["pod"]: p["node"] for p in doc["placements"]}, doc["summary"]["pending"])
    kube = _side(1.0, 50.0, {p["pod"]: p["node"] for p in doc["placements"]}, CHURN.measure)
    assert side_by_side.problems([Row(CHURN, kube, ours)]) == []


def test_kschedctl_runs_on_the_interpreter_asked_for() -> None:
    ours = side_by_side.ksched_command(Path("f.json"), Path("c.yaml"), python="/opt/some/bin/python")
    assert ours[:3] == ["/opt/some/bin/python", "-m", "kschedctl"]
    assert side_by_side.ksched_command(Path("f.json"), Path("c.yaml"))[0] == sys.executable


def test_the_interpreter_is_described_as_it_says_of_itself() -> None:
    import platform

    import kschedctl

    about = side_by_side.interpreter()
    assert about["version"] == platform.python_version()
    assert about["executable"] == sys.executable
    assert Path(str(about["kschedctl"])).resolve() == Path(kschedctl.__file__).resolve()
    line = side_by_side.describe_interpreter(about)
    assert line.startswith(f"kschedctl ran on cpython {platform.python_version()} ({sys.executable}): libpython ")


def test_interpreter_lines_say_how_libpython_is_linked_and_configured() -> None:
    shared = {"implementation": "cpython", "version": "3.11.7", "executable": "/p", "libpython_shared": True, "kschedctl": "/k"}
    assert "libpython a shared library, configured without --enable-optimizations or --with-lto" in side_by_side.describe_interpreter(
        shared
    )
    elsewhere = dict(shared, libpython_shared=None)  # no /proc/self/maps to read
    assert "libpython's linking unknown" in side_by_side.describe_interpreter(elsewhere)
    static = dict(shared, libpython_shared=False, configure_optimizations=True, configure_lto=True)
    assert "libpython in the executable, configured with --enable-optimizations --with-lto" in side_by_side.describe_interpreter(static)


def test_an_interpreter_without_kschedctl_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="cannot import kschedctl"):
        side_by_side.interpreter(_python_without_kschedctl(tmp_path))
    with pytest.raises(SystemExit, match="not an executable file"):
        side_by_side.main(["--python", str(tmp_path / "missing"), "--case", "SchedulingBasic_500Nodes_500Init_1000Pods"])


def _python_without_kschedctl(tmp_path: Path) -> str:
    """This interpreter with site-packages and the source tree out of sight (-S -I)."""
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -S -I "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)
