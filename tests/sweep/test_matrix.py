"""The sweep matrix format (kschedctl/schemas/sweep-v1.json, kschedctl/sweep/matrix.py) and the
configuration patch language (kschedctl/sweep/patch.py): what a valid matrix expands to, and
what an invalid one says (exit 2, one line: file, line, Sweep, field, message)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from kschedctl.api.errors import InputError
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.sweep.matrix import load_matrix
from kschedctl.sweep.patch import PatchError, expand
from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
HEAD = "apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\n"


def _snapshot(path: Path, pods: int = 1) -> None:
    items = [make_node("n1").capacity(cpu="4", memory="8Gi").dict()]
    items += [make_pod(f"p{i}").req(cpu="100m").dict() for i in range(pods)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """a.yaml, b.yaml (differs from a), nightly/{x,y}.json (y differs from x), clusters/{eu,us}/ (two files each)."""
    for name in ("a.yaml", "clusters/eu/nodes.yaml", "clusters/us/nodes.yaml"):
        _snapshot(tmp_path / name)
    _snapshot(tmp_path / "b.yaml", pods=3)
    _snapshot(tmp_path / "nightly" / "x.json")
    _snapshot(tmp_path / "nightly" / "y.json", pods=2)
    for c in ("eu", "us"):
        (tmp_path / "clusters" / c / "pods.yaml").write_text(yaml.safe_dump(make_pod(f"{c}-pod").req(cpu="1").dict()))
    return tmp_path


def _load(folder: Path, body: str):
    path = folder / "m.yaml"
    path.write_text(HEAD + textwrap.dedent(body))
    return load_matrix(str(path), default_registry().registry)


# --- what a valid matrix expands to ----------------------------------------------------------


def test_defaults_one_cell_per_snapshot(folder: Path) -> None:
    m = _load(folder, "snapshots: [a.yaml]\n")
    assert m.command == "schedule" and m.name == "m"
    assert [c.axes() for c in m.cells] == [
        {"snapshot": "a.yaml", "config": "default", "kubeVersion": "1.37", "featureGates": "", "seed": 0}
    ]
    assert m.cells[0].config.raw is None  # the built-in configuration, untouched


@pytest.mark.parametrize(
    "entries,labels",
    [
        pytest.param(["a.yaml"], ["a.yaml"], id="file"),
        pytest.param(["nightly"], ["nightly/x.json", "nightly/y.json"], id="directory: one snapshot per file"),
        pytest.param(["*.yaml"], ["a.yaml", "b.yaml", "m.yaml"], id="glob: one per match"),
        pytest.param(["clusters/*"], ["clusters/eu", "clusters/us"], id="glob over directories: each read whole"),
        pytest.param(["a.yaml", "[ab].yaml"], ["a.yaml", "b.yaml"], id="listed twice: once"),
        pytest.param(
            [{"name": "eu+us", "paths": ["clusters/eu", "clusters/us/pods.yaml"]}], ["eu+us"], id="named: several paths, one snapshot"
        ),
    ],
)
def test_snapshot_entries(folder: Path, entries: list, labels: list[str]) -> None:
    m = _load(folder, f"snapshots: {json.dumps(entries)}\n")
    assert [s.label for s in m.snapshots] == labels


def test_named_snapshot_reads_every_file_and_hashes_their_bytes(folder: Path) -> None:
    m = _load(folder, 'snapshots: [{name: eu, paths: [clusters/eu]}, "clusters/e*"]\n')
    named, glob_dir = m.snapshots
    assert [Path(f).name for f in named.files] == ["nodes.yaml", "pods.yaml"]
    assert named.key == glob_dir.key  # same bytes, same key
    assert m.cells[0].key == m.cells[1].key  # and so the same cell: it runs once


def test_grid_order_last_axis_fastest(folder: Path) -> None:
    m = _load(
        folder,
        """\
        snapshots: [a.yaml, b.yaml]
        configs:
          - name: fit
            weights: {NodeResourcesFit: [1, 5]}
            scoringStrategy: [LeastAllocated, MostAllocated]
        kubeVersions: ["1.35", "1.37"]
        featureGates: ["", {GangScheduling: true, GenericWorkload: true}]
        seeds: {first: 3, count: 2}
        """,
    )
    assert len(m.cells) == 2 * 4 * 2 * 2 * 2
    assert [c.index for c in m.cells] == list(range(64))
    first = [
        (
            c.snapshot.label,
            c.config.params["weights.NodeResourcesFit"],
            c.config.params["scoringStrategy"],
            c.kube_version,
            c.feature_gates,
            c.seed,
        )
        for c in m.cells[:5]
    ]
    assert first == [
        ("a.yaml", 1, "LeastAllocated", "1.35", "", 3),
        ("a.yaml", 1, "LeastAllocated", "1.35", "", 4),
        ("a.yaml", 1, "LeastAllocated", "1.35", "GangScheduling=true,GenericWorkload=true", 3),
        ("a.yaml", 1, "LeastAllocated", "1.35", "GangScheduling=true,GenericWorkload=true", 4),
        ("a.yaml", 1, "LeastAllocated", "1.37", "", 3),
    ]
    assert m.param_columns() == ["weights.NodeResourcesFit", "scoringStrategy"]
    assert len({c.key for c in m.cells}) == 64


def test_key_follows_content_not_names(folder: Path) -> None:
    """The key covers the snapshot's bytes and the patched configuration: a comment in the
    matrix changes nothing, a byte of the snapshot or a value of the configuration does."""
    body = "snapshots: [a.yaml]\nconfigs: [{name: w, weights: {NodeResourcesFit: [2]}}]\n"
    key = _load(folder, body).cells[0].key
    assert _load(folder, "# a comment\n" + body).cells[0].key == key
    assert _load(folder, body.replace("name: w", "name: other")).cells[0].key == key
    assert _load(folder, body.replace("[2]", "[3]")).cells[0].key != key
    _snapshot(folder / "a.yaml", pods=2)
    assert _load(folder, body).cells[0].key != key


def test_diff_side_a_and_config_files(folder: Path) -> None:
    m = _load(
        folder,
        f"""\
        command: diff
        snapshots: [a.yaml]
        configs: [{ROOT / "profiles" / "bin-packing.yaml"}, {{name: default}}]
        diff: {{kubeVersion: "1.35"}}
        """,
    )
    assert m.diff_a is not None and m.diff_a.kube_version == "1.35" and m.diff_a.config.raw is None
    assert m.configs[0].raw["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "MostAllocated"
    assert [c.label for c in m.configs] == [str(ROOT / "profiles" / "bin-packing.yaml"), "default"]


# --- the patch language --------------------------------------------------------------------

BIN_PACKING = yaml.safe_load((ROOT / "profiles" / "bin-packing.yaml").read_text())
TWO_PROFILES = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch"}],
}


@pytest.mark.parametrize(
    "base,entry,want",
    [
        pytest.param(
            None,
            {"weights": {"ImageLocality": [3]}},
            {
                "profiles": [
                    {"schedulerName": "default-scheduler", "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 3}]}}}
                ]
            },
            id="weights on the built-in config: kube's default profile written out",
        ),
        pytest.param(
            BIN_PACKING,
            {"weights": {"NodeResourcesFit": [2]}},
            {"profiles[0].plugins.score.enabled": [{"name": "NodeResourcesFit", "weight": 2}]},
            id="weights: the existing score entry gets the weight",
        ),
        pytest.param(
            BIN_PACKING,
            {"scoringStrategy": ["LeastAllocated"]},
            {"profiles[0].pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "LeastAllocated"}}}]},
            id="scoringStrategy by name replaces the whole strategy",
        ),
        pytest.param(
            TWO_PROFILES,
            {"profiles": ["batch"], "scoringStrategy": [{"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}]},
            {
                "profiles[1].pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}},
                    }
                ],
                "profiles[0]": {"schedulerName": "default-scheduler"},
            },
            id="profiles selects where weights, strategy and args apply",
        ),
        pytest.param(
            None,
            {"args": {"PodTopologySpread": {"defaultingType": ["List"]}}},
            {"profiles[0].pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]},
            id="args: a field of the plugin's args",
        ),
        pytest.param(
            TWO_PROFILES,
            {"set": {"profiles[1].percentageOfNodesToScore": [50]}},
            {"profiles[1]": {"schedulerName": "batch", "percentageOfNodesToScore": 50}},
            id="set: any field of the configuration",
        ),
    ],
)
def test_patch(base, entry, want) -> None:
    (patched,) = expand(base, entry)
    from kschedctl.sweep.patch import split_path

    for path, value in want.items():
        node = patched.raw
        for part in split_path(path):
            node = node[part]
        assert node == value, path


def test_patch_grid_and_params() -> None:
    grid = expand(None, {"weights": {"NodeResourcesFit": [1, 2]}, "set": {"percentageOfNodesToScore": [10, 50]}})
    assert [g.params for g in grid] == [
        {"weights.NodeResourcesFit": 1, "set.percentageOfNodesToScore": 10},
        {"weights.NodeResourcesFit": 1, "set.percentageOfNodesToScore": 50},
        {"weights.NodeResourcesFit": 2, "set.percentageOfNodesToScore": 10},
        {"weights.NodeResourcesFit": 2, "set.percentageOfNodesToScore": 50},
    ]
    assert grid[3].raw["percentageOfNodesToScore"] == 50
    (strategy,) = expand(None, {"scoringStrategy": [{"type": "MostAllocated"}]})
    assert strategy.params == {"scoringStrategy": '{"type":"MostAllocated"}'}


@pytest.mark.parametrize(
    "entry,field",
    [
        pytest.param({"set": {"profiles[3].x": [1]}}, "set.profiles[3].x", id="list index out of range"),
        pytest.param({"set": {"a..b": [1]}}, "set.a..b", id="not a field path"),
        pytest.param({"profiles": ["nope"], "weights": {"NodeResourcesFit": [1]}}, "profiles", id="unknown profile"),
    ],
)
def test_patch_errors(entry, field) -> None:
    with pytest.raises(PatchError) as err:
        expand(TWO_PROFILES, entry)
    assert err.value.field == field


# --- invalid matrices: exit 2, one line ------------------------------------------------------

INVALID = [
    pytest.param("snapshotz: [a.yaml]\n", 'm.yaml:3: Sweep: snapshotz: unknown field "snapshotz"', id="unknown field"),
    pytest.param("metadata: {name: x}\n", "m.yaml:1: Sweep: snapshots: Required value", id="no snapshots"),
    pytest.param(
        "snapshots: [a.yaml]\nseeds: [1, -2]\n",
        "m.yaml:4: Sweep: seeds[1]: Invalid value: -2: out of range, must be >= 0",
        id="negative seed",
    ),
    pytest.param("snapshots: [a.yaml]\ncommand: explain\n", "m.yaml:4: Sweep: command: 'explain' is not one of", id="unknown command"),
    pytest.param(
        "snapshots: [a.yaml, 'none-*.yaml']\n", "m.yaml:3: Sweep: snapshots[1]: none-*.yaml: matches no file", id="glob matching nothing"
    ),
    pytest.param(
        "snapshots:\n  - a.yaml\n  - missing.yaml\n",
        "m.yaml:5: Sweep: snapshots[1]: missing.yaml: no such file or directory",
        id="missing file",
    ),
    pytest.param(
        "snapshots: [a.yaml]\nkubeVersions: ['1.37', '1.20']\n",
        "m.yaml:4: Sweep: kubeVersions[1]: unsupported --kube-version '1.20'",
        id="unsupported release",
    ),
    pytest.param(
        "snapshots: [a.yaml]\nfeatureGates: [{NoSuchGate: true}]\n",
        "m.yaml:4: Sweep: featureGates[0]: unrecognized feature gate: NoSuchGate",
        id="unknown gate",
    ),
    pytest.param(
        "snapshots: [a.yaml]\nconfigs:\n  - name: w\n    weights: {NodeResourceFit: [1]}\n",
        "m.yaml:5: Sweep: configs[0]: <default> patched with weights.NodeResourceFit=1: profiles[0].plugins.score.enabled[",
        id="patch naming no plugin: kube's validation, at the entry",
    ),
    pytest.param(
        "snapshots: [a.yaml]\nconfigs:\n  - name: w\n    set: {'profiles[2].x': [1]}\n",
        "m.yaml:6: Sweep: configs[0].set.profiles[2].x: profiles[2]: no such list item",
        id="patch path",
    ),
    pytest.param(
        "snapshots: [a.yaml]\nconfigs: [{name: w}, {name: w}]\n",
        "m.yaml:4: Sweep: configs[1]: another entry (configs[0]) is labelled 'w'",
        id="duplicate label",
    ),
    pytest.param(
        "snapshots: [a.yaml]\ndiff: {kubeVersion: '1.35'}\n",
        "m.yaml:4: Sweep: diff: only for command: diff",
        id="diff without command diff",
    ),
    pytest.param("snapshots: [a.yaml\n", "m.yaml:4: malformed YAML", id="malformed YAML"),
    # read as every other input (kschedctl.api.decoding): strict, bounded, kubectl's YAML rules
    pytest.param("snapshots: [a.yaml]\nseeds: [1]\nseeds: [2]\n", 'm.yaml:5: key "seeds" already set in map', id="duplicate key"),
    pytest.param("snapshots: [a.yaml]\nseeds: [1:30]\n", "m.yaml:4: Sweep: seeds[0]: ", id="base-60 is text"),
]


@pytest.mark.parametrize("body,line", INVALID)
def test_invalid_matrix_is_exit_2_with_file_field_and_line(folder: Path, run_cli, monkeypatch, body: str, line: str) -> None:
    (folder / "m.yaml").write_text(HEAD + body)
    monkeypatch.chdir(folder)
    out = run_cli("sweep", "m.yaml")
    assert out.exit_code == 2, out.stdout
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert out.stderr.startswith("error: " + line), out.stderr
    assert not (folder / "m.results.parquet").exists()


def test_invalid_config_file_names_the_matrix_entry(folder: Path) -> None:
    (folder / "bad.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 300\n"
    )
    with pytest.raises(InputError) as err:
        _load(folder, "snapshots: [a.yaml]\nconfigs: [bad.yaml]\n")
    assert err.value.field == "configs[0]" and err.value.line == 4
    assert "percentageOfNodesToScore" in str(err.value)
