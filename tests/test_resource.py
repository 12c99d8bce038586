"""Pod request arithmetic: component-helpers resource/helpers.go PodRequests and the scheduler's
non-zero defaults (pkg/scheduler/util/pod_resources.go)."""

import pytest

from kschedctl.framework.resource import (
    compute_non_zero_request,
    compute_pod_resource_request,
)
from kschedctl.testing import make_pod

Mi = 1024 * 1024


@pytest.mark.parametrize(
    "pod,cpu,mem",
    [
        # upstream helpers_test.go TestPodRequests "multiple containers": containers are summed
        (make_pod("p").req(cpu="1", memory="1Gi").req(cpu="500m", memory="512Mi"), 1500, 1536 * Mi),
        # "init container larger than the containers": max(sum, each init)
        (make_pod("p").req(cpu="1").init_req({"cpu": "2"}), 2000, 0),
        # "restartable init container": sidecars add to the sum and stay during later init containers
        (make_pod("p").req(cpu="1").init_req({"cpu": "1"}, sidecar=True).init_req({"cpu": "1500m"}), 2500, 0),
        # sidecar started before an init container counts towards that init container's use
        (make_pod("p").req(cpu="100m").init_req({"cpu": "1"}, sidecar=True).init_req({"cpu": "2"}), 3000, 0),
        # overhead is added on top ("pod overhead")
        (make_pod("p").req(cpu="1", memory="1Gi").overhead(cpu="250m", memory="120Mi"), 1250, 1144 * Mi),
        # pod-level resources replace the aggregate (PodLevelResources)
        (make_pod("p").req(cpu="1").req(cpu="1").pod_requests(cpu="1500m"), 1500, 0),
    ],
)
def test_pod_requests(pod, cpu, mem):
    res = compute_pod_resource_request(pod.obj())
    assert (res.milli_cpu, res.memory) == (cpu, mem)


@pytest.mark.parametrize(
    "pod,cpu,mem",
    [
        # pod_resources.go: a container without requests gets 100m / 200Mi for scoring
        (make_pod("p").container(), 100, 200 * Mi),
        (make_pod("p").container().container(), 200, 400 * Mi),
        # an explicit zero stays zero (only a missing key is defaulted)
        (make_pod("p").req(cpu="0", memory="0"), 0, 0),
        (make_pod("p").req(cpu="1"), 1000, 200 * Mi),
    ],
)
def test_non_zero_requests(pod, cpu, mem):
    assert compute_non_zero_request(pod.obj()) == (cpu, mem)


def test_requests_default_to_limits_like_the_api_server():
    pod = make_pod("p").container(limits={"cpu": "2", "memory": "1Gi"}).obj()
    res = compute_pod_resource_request(pod)
    assert (res.milli_cpu, res.memory) == (2000, 1024 * Mi)


def test_scheduler_units_round_up_as_the_fraction_does():
    """scheduler_units works on the fraction's terms; it must give math.ceil of the exact value
    (quantities round up: apimachinery Quantity.MilliValue / Value), negatives included."""
    import math
    import random
    from fractions import Fraction

    from kschedctl.framework.resource import scheduler_units

    rng = random.Random(7)
    samples = [0, 1, -1, Fraction(1, 3), Fraction(-1, 3), Fraction(1, 1000), Fraction(1, 1001), Fraction(2500, 1)]
    samples += [Fraction(rng.randint(-(10**12), 10**12), rng.randint(1, 10**6)) for _ in range(3000)]
    samples += [rng.randint(-(10**15), 10**15) for _ in range(1000)]
    for qty in samples:
        assert scheduler_units("cpu", qty) == math.ceil(Fraction(qty) * 1000), qty
        assert scheduler_units("memory", qty) == math.ceil(qty), qty
        assert scheduler_units("example.com/gpu", qty) == math.ceil(qty), qty


# requests_of: the two computations above, kept by what they read
def _variants() -> list:
    """Pods that differ in one thing the requests read each: amounts, a sidecar flag, the
    order of init containers, overhead, pod-level requests, no requests at all."""
    return [
        make_pod("a").req(cpu="1", memory="1Gi"),
        make_pod("b").req(cpu="1", memory="1Gi").req(cpu="500m"),
        make_pod("c").req(cpu="100m").init_req({"cpu": "1"}, sidecar=True).init_req({"cpu": "2"}),
        make_pod("d").req(cpu="100m").init_req({"cpu": "1"}).init_req({"cpu": "2"}),
        make_pod("e").req(cpu="100m").init_req({"cpu": "2"}).init_req({"cpu": "1"}, sidecar=True),
        make_pod("f").req(cpu="1", memory="1Gi").overhead(cpu="250m"),
        make_pod("g").req(cpu="1").pod_requests(cpu="1500m"),
        make_pod("h").req(memory="64Mi").pod_requests(cpu="1500m"),
        make_pod("i"),
        make_pod("j").req(cpu="0", memory="0"),
    ]


def test_requests_of_is_the_two_computations_and_tells_the_variants_apart() -> None:
    from kschedctl.framework.resource import requests_of

    # each variant after the others are kept: a key that missed one thing they differ in
    # would give one the other's answer (c and d differ only in the sidecar flag)
    for builder in _variants():
        pod = builder.obj()
        req, cpu, mem = requests_of(pod)
        want = compute_pod_resource_request(pod)
        assert (req, cpu, mem) == (want, *compute_non_zero_request(pod)), pod.name
        again = builder.obj()  # a replica: another object, the same content
        assert requests_of(again)[0] is req


def test_requests_of_starts_again_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedctl.api import content_memo
    from kschedctl.framework import resource

    monkeypatch.setattr(resource, "_REQUESTS_KEPT", {})
    monkeypatch.setattr(content_memo, "LIMIT", 3)
    for i in range(7):
        pod = make_pod(f"p{i}").req(cpu=f"{i + 1}").obj()
        assert resource.requests_of(pod)[1] == 1000 * (i + 1)
        assert len(resource._REQUESTS_KEPT) <= 3
