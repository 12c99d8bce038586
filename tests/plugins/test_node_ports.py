"""NodePorts tests, from upstream nodeports/node_ports_test.go."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, QueueingHint, Status
from kschedctl.plugins.node_ports import NodePorts
from kschedctl.testing import make_node, make_pod, new_framework, only_plugins

CONFIG = only_plugins("NodePorts")
ERR = Status(Code.Unschedulable, "node(s) didn't have free ports for the requested pod ports")


def new_pod(name, *specs, node_name=""):
    """newPod(host, "PROTO/IP/PORT"...) of the upstream test: one container per port."""
    b = make_pod(name)
    for spec in specs:
        proto, ip, port = spec.split("/")
        b.host_port(int(port), proto, ip)
    if node_name:
        b.node(node_name)
    return b.obj()


CASES = [
    ("nothing running", [], [], None, Status(Code.Skip)),
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], None, None),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], ERR, None),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], ERR, None),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], None, None),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], None, None),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], ERR, None),
    ("first tcp port conflict", ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], ERR, None),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], ERR, None),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], ERR, None),
    ("second tcp port conflict to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], ERR, None),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], None, None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], ERR, None),
]


# upstream: node_ports_test.go TestNodePorts, every case by name
@pytest.mark.parametrize("name, wanted, existing, want, want_pf", CASES, ids=[c[0] for c in CASES])
def test_node_ports(name, wanted, existing, want, want_pf):
    n = make_node("n1").obj()
    existing_pod = new_pod("existing", *existing, node_name="n1")
    fwk = new_framework(CONFIG, nodes=[n], pods=[existing_pod])
    pl = NodePorts(None, fwk.handle)
    pod = new_pod("pod", *wanted)
    state = CycleState()
    result, status = pl.pre_filter(state, pod, fwk.snapshot.list())
    assert result is None
    assert status == want_pf
    if want_pf is not None and want_pf.is_skip():
        return
    got = pl.filter(state, pod, fwk.snapshot.get("n1"))
    if want is None:
        assert got is None
    else:
        assert got is not None and got.code == want.code and got.message() == want.message()


def test_pre_filter_disabled():
    # upstream: node_ports_test.go TestPreFilterDisabled
    fwk = new_framework(CONFIG, nodes=[make_node("n1").obj()])
    got = NodePorts(None, fwk.handle).filter(CycleState(), new_pod("pod", "TCP/127.0.0.1/8080"), fwk.snapshot.get("n1"))
    assert got.code == Code.Error
    assert got.message() == 'reading "PreFilterNodePorts" from cycleState: not found'


def test_sidecar_ports_count_plain_init_ports_do_not():
    # upstream: util.GetHostPorts counts restartable init containers (sidecars) but not ordinary init containers
    n = make_node("n1").obj()
    sidecar = (
        make_pod("sidecar")
        .node("n1")
        .container()
        .set(
            "spec.initContainers",
            [{"name": "s", "image": "x", "restartPolicy": "Always", "ports": [{"containerPort": 9000, "hostPort": 9000}]}],
        )
        .obj()
    )
    fwk = new_framework(CONFIG, nodes=[n], pods=[sidecar])
    pl = NodePorts(None, fwk.handle)
    state = CycleState()
    pod = new_pod("pod", "TCP//9000")
    assert pl.pre_filter(state, pod, fwk.snapshot.list()) == (None, None)
    assert pl.filter(state, pod, fwk.snapshot.get("n1")) == ERR
    plain_init = (
        make_pod("p")
        .container()
        .set("spec.initContainers", [{"name": "i", "image": "x", "ports": [{"containerPort": 9000, "hostPort": 9000}]}])
        .obj()
    )
    assert pl.pre_filter(CycleState(), plain_init, fwk.snapshot.list())[1] == Status(Code.Skip)


@pytest.mark.parametrize(
    "deleted, want",
    [
        # upstream: node_ports.go isSchedulableAfterPodDeleted (cases modelled on Test_isSchedulableAfterPodDeleted)
        pytest.param(new_pod("d", "TCP/0.0.0.0/8080", node_name="n1"), QueueingHint.Queue, id="backoff-queue-when-fits-host-ports"),
        pytest.param(new_pod("d", "TCP/0.0.0.0/8080"), QueueingHint.QueueSkip, id="skip-queue-when-unscheduled"),
        pytest.param(new_pod("d", node_name="n1"), QueueingHint.QueueSkip, id="skip-queue-when-no-host-ports"),
        pytest.param(
            new_pod("d", "TCP/0.0.0.0/8081", node_name="n1"), QueueingHint.QueueSkip, id="skip-queue-when-host-ports-do-not-overlap"
        ),
    ],
)
def test_is_schedulable_after_pod_deleted(deleted, want):
    pl = NodePorts(None, new_framework(CONFIG).handle)
    assert pl.is_schedulable_after_pod_deleted(new_pod("pod", "TCP/0.0.0.0/8080"), deleted, None) == want


def test_events_to_register():
    pl = NodePorts(None, new_framework(CONFIG).handle)
    assert [(e.event.resource, e.event.action) for e in pl.events_to_register()] == [("Pod", "Delete"), ("Node", "Add")]
