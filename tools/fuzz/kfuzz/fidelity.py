"""The fidelity dimension: feature-gate sets per release, and image sizes nodes disagree on.

Each input draws one of two shapes:

- ``gates``: a release and a `--feature-gates` string of gates kschedctl knows (locked or not in
  that release, set to their default or not), sometimes an unknown or malformed entry, through
  `schedule`, `explain`, `validate` and one side of `diff`. Every command must answer alike:
  exit 2 with kube's text ("cannot set feature gate X to false, feature is locked to true", an
  aggregate "[..., ...]" for several) exactly when a locked gate is changed, else as without
  the lock rule (kschedctl/versions.py LOCKED_TO_DEFAULT; feature_gate.go unsafeSetFromMap).
- ``images``: 2-40 nodes listing a few image names with sizes that differ from node to node
  (some names on several images of one node), in a random order; `explain` of a pod using some
  of them. Each node's ImageLocality score must be the one kube's cache gives: every holder of
  a name uses the size the first node (input order; its first image listing the name) reported,
  and the count of nodes holding it (pkg/scheduler/backend/cache/cache.go addNodeImageStates),
  computed here from the input alone. From 24 nodes on the batch form answers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import yaml

from kfuzz.contract import Checker

MB = 1024 * 1024


def fidelity_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    if rng.random() < 0.5:
        return _gates(rng, workdir, checker)
    return _images(rng, workdir, checker)


# --- gates --------------------------------------------------------------------------------------


def _gate_string(rng: random.Random, release: str) -> tuple[str, list[str], bool]:
    """(the flag value, kube's refusals in order, whether something else makes it bad input)."""
    from kschedctl.versions import FEATURE_GATES, LOCKED_TO_DEFAULT, KubeVersion

    version = KubeVersion(release)
    entries, refusals, other_error = [], [], False
    for gate in rng.sample(sorted(FEATURE_GATES), rng.randint(1, 4)):
        value = rng.random() < 0.5
        entries.append(f"{gate}={str(value).lower() if rng.random() < 0.8 else str(value)}")
        since = LOCKED_TO_DEFAULT.get(gate)
        if since is not None and version.at_least(since) and value != version.feature_enabled(gate):
            default = str(version.feature_enabled(gate)).lower()
            refusals.append(f"cannot set feature gate {gate} to {str(value).lower()}, feature is locked to {default}")
    if rng.random() < 0.1:
        entries.insert(rng.randrange(len(entries) + 1), rng.choice(["NoSuchGate=true", "SidecarContainers", "X=maybe"]))
        other_error = True
    return ",".join(entries), refusals, other_error


def _gates(rng: random.Random, workdir: Path, checker: Checker) -> str:
    release = rng.choice(["1.35", "1.36", "1.37"])
    gates, refusals, other_error = _gate_string(rng, release)
    snap = workdir / "gates-snapshot.yaml"
    snap.write_text(yaml.safe_dump(_cluster([(f"n{i}", [], 4) for i in range(2)], ["registry.example/app:1"])))
    cfg = workdir / "gates-config.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    common = ["--kube-version", release]
    runs = {
        "schedule": checker.run(["schedule", str(snap), *common, "--feature-gates", gates, "-o", "json"]),
        "explain": checker.run(["explain", "default/web", str(snap), *common, "--feature-gates", gates]),
        "validate": checker.run(["validate", str(cfg), *common, "--feature-gates", gates]),
    }
    side = rng.choice(["a", "b"])
    runs["diff"] = checker.run(["diff", str(snap), f"--kube-version-{side}", release, f"--feature-gates-{side}", gates])
    want = f"error: {refusals[0] if len(refusals) == 1 else '[' + ', '.join(refusals) + ']'}\n" if refusals else None
    for command, run in runs.items():
        if not checker.basic(run, command, ""):
            continue
        if other_error:
            if run.exit_code != 2:
                checker.fail("gates", f"{command} took a malformed or unknown gate", run)
        elif want is not None and (run.exit_code, run.stderr) != (2, want):
            checker.fail("locked-gate", f"{command} did not refuse as kube does: want {want!r}", run)
        elif want is None and run.exit_code != 0:
            checker.fail("locked-gate", f"{command} refused gates kube takes", run)
    return f"gates {release} {gates!r}"


# --- images -------------------------------------------------------------------------------------


def _cluster(nodes: list[tuple[str, list[tuple[list[str], int]], int]], pod_images: list[str]) -> dict:
    items = []
    for name, images, cpu in nodes:
        status: dict = {"allocatable": {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}}
        if images:
            status["images"] = [{"names": names, "sizeBytes": size} for names, size in images]
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status})
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(pod_images)]
    items.append(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"}, "spec": {"containers": containers}}
    )
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _expected_scores(nodes: list[tuple[str, list[tuple[list[str], int]], int]], pod_images: list[str]) -> dict:
    """ImageLocality per node from the input alone: the first size reported, the holder count."""
    first: dict[str, int] = {}
    holders: dict[str, set[str]] = {}
    for name, images, _ in nodes:
        for names, size in images:
            for image in names:
                first.setdefault(image, size)
                holders.setdefault(image, set()).add(name)
    total = len(nodes)
    out = {}
    for name, images, _ in nodes:
        has = {image for names, _ in images for image in names}
        summed = 0
        for image in pod_images:
            key = image if image.rfind(":") > image.rfind("/") else image + ":latest"
            if key in has:
                summed += int(float(first[key]) * (float(len(holders[key])) / float(total)))
        max_threshold = 1000 * MB * len(pod_images)
        summed = min(max(summed, 23 * MB), max_threshold)
        out[name] = 100 * (summed - 23 * MB) // (max_threshold - 23 * MB)
    return out


def _images(rng: random.Random, workdir: Path, checker: Checker) -> str:
    names = ["registry.example/a:1", "registry.example/b:2", "registry.example/c:latest", "registry.example/d:3"]
    nodes = []
    for i in range(rng.choice([2, 3, 5, 9, 24, 30, 40])):
        images = []
        for image in rng.sample(names, rng.randint(0, len(names))):
            size = rng.choice([330, 340, 600, 995, 1000, 2000]) * MB + rng.randrange(-3, 4) * 1024
            images.append(([image], max(size, 0)))
        if images and rng.random() < 0.2:  # a name on a second image of the node: its first size counts
            images.append(([rng.choice(images)[0][0]], rng.choice([10, 3000]) * MB))
        nodes.append((f"n{i:02d}", images, 4))
    pod_images = [n.removesuffix(":latest") if rng.random() < 0.5 else n for n in rng.sample(names, rng.randint(1, 3))]
    path = workdir / "images-snapshot.json"
    path.write_text(json.dumps(_cluster(nodes, pod_images)))
    release = rng.choice(["1.35", "1.36", "1.37"])
    run = checker.run(["explain", "default/web", str(path), "--kube-version", release, "-o", "json"])
    if checker.basic(run, "explain", str(path)) and run.exit_code == 0:
        got = {
            n: row["scores"]["ImageLocality"]["score"]
            for n, row in json.loads(run.stdout)["nodes"].items()
            if "ImageLocality" in (row.get("scores") or {})
        }
        want = _expected_scores(nodes, pod_images)
        wrong = {n: (want[n], s) for n, s in got.items() if s != want[n]}
        if wrong:
            checker.fail("image-states", f"ImageLocality (want, got) on {dict(list(wrong.items())[:4])}", run)
    return f"images {len(nodes)} nodes, pod {pod_images}, {release}"
