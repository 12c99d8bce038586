"""The scheduler cache, its node tree and the per-cycle Snapshot.

Upstream: pkg/scheduler/backend/cache/{cache.go,node_tree.go,snapshot.go}.
The cache holds the live NodeInfos (bound and assumed pods); at the start of every
scheduling cycle ``update_snapshot`` copies only the NodeInfos whose generation moved,
so a cycle sees a consistent view while the cache keeps changing. The snapshot's node
list is in node-tree order (zones interleaved), which is the filter search order.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import zip_longest
from operator import attrgetter

from kschedctl.api.types import Node, Pod
from kschedctl.backend.cache.columnar import Columns
from kschedctl.backend.cache.image_states import ImageStates
from kschedctl.framework.types import ImageStateSummary, NodeInfo, PodInfo

BETA_ZONE, ZONE = "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"
BETA_REGION, REGION = "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey (component-helpers node/topology): region + ":\\x00:" + zone, or ""
    when both are empty. The deprecated failure-domain.beta labels win over the GA ones
    whenever present (even empty): that order places a node carrying both in the node tree."""
    labels = node.labels
    zone = labels[BETA_ZONE] if BETA_ZONE in labels else labels.get(ZONE, "")
    region = labels[BETA_REGION] if BETA_REGION in labels else labels.get(REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree:
    """Nodes grouped by zone; ``list()`` takes one node of each zone in turn (node_tree.go)."""

    def __init__(self) -> None:
        self.tree: dict[str, list[str]] = {}
        self.zones: list[str] = []
        self.num_nodes = 0
        self._members: dict[str, set[str]] = {}  # the names of each zone's list, for membership

    def add_node(self, node: Node) -> bool:
        """Adds the node to its zone; True when it is new and ``list()`` now ends with it (the
        order of the others unchanged), which lets a snapshot append it instead of listing
        every node again."""
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names is None:
            self.tree[zone] = [node.name]
            self._members[zone] = {node.name}
            self.zones.append(zone)
        elif node.name not in self._members[zone]:
            names.append(node.name)
            self._members[zone].add(node.name)
        else:
            return False
        self.num_nodes += 1
        return self._is_last(zone)

    def _is_last(self, zone: str) -> bool:
        """Whether the last node of ``zone`` comes last in ``list()``: it is taken in round
        ``c`` (c the zone's other nodes), after the zones before it and before those after it,
        so it is last when no zone before it has a node left for a later round and no zone
        after it has one for round ``c``."""
        c = len(self.tree[zone]) - 1
        before = True
        for other in self.zones:
            if other == zone:
                before = False
            elif len(self.tree[other]) > (c + 1 if before else c):
                return False
        return True

    def remove_node(self, node: Node) -> None:
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names and node.name in self._members[zone]:
            names.remove(node.name)
            self._members[zone].discard(node.name)
            self.num_nodes -= 1
            if not names:
                del self.tree[zone]
                del self._members[zone]
                self.zones.remove(zone)

    def update_node(self, old: Node, new: Node) -> None:
        if zone_key(old) == zone_key(new):
            return
        self.remove_node(old)
        self.add_node(new)

    def list(self) -> list[str]:
        """Round after round, the next node of each zone in zone order (zip_longest walks the
        zones' lists in C; a zone that has run out pads with None, which no name is)."""
        if len(self.zones) == 1:
            return list(self.tree[self.zones[0]])
        return [name for group in zip_longest(*map(self.tree.__getitem__, self.zones)) for name in group if name is not None]


_INDEX = attrgetter("index")


class Snapshot:
    """The NodeInfos one scheduling cycle works on (cache/snapshot.go), the SharedLister."""

    def __init__(self, columnar_min_nodes: int = 0) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.have_pods_with_affinity_node_info_list: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity_node_info_list: list[NodeInfo] = []
        self.used_pvc_set: set[str] = set()
        # For used_pvc_set kept up to date (Cache._update_used_pvc_set): per node name, the PVC
        # keys its NodeInfo was counted with, and per key the number of such nodes; None until
        # the first full count.
        self.pvc_keys_by_node: dict[str, tuple[str, ...]] | None = None
        self.pvc_users: dict[str, int] = {}
        self.generation = 0
        # image name -> [(row = NodeInfo.index, that node's ImageStateSummary)], made from
        # node_info_list on first use after the list or a row's image states changed (see
        # image_index). Lets ImageLocality's batch form touch only the nodes that hold an image.
        self._image_index: dict[str, list[tuple[int, ImageStateSummary]]] | None = None
        # per node name, the cache's image epoch when its NodeInfo's image_states were taken
        self.image_epochs: dict[str, int] = {}
        # For the columnar view (backend/columnar.py): the rows (NodeInfo.index) whose NodeInfo
        # update_snapshot replaced since the view last synced; None when unknown (after a
        # rebuild), and then the view re-checks every row. ``tracks_rows`` is False for a
        # standalone snapshot (from_nodes_and_pods), whose NodeInfos tests may edit in place:
        # the view then checks each node's generation on every call.
        self.replaced_rows: set[int] | None = None
        self.tracks_rows = True
        # The snapshot's columns (numpy arrays of per-node numbers, one row per NodeInfo.index)
        # and the per-snapshot sums the batch forms keep across cycles (plugins/row_aggregate.py):
        # owned here, synced from replaced_rows, never rebuilt per call. Made on first use, and
        # only once the snapshot holds columnar_min_nodes nodes (see the columns property).
        self.columnar_min_nodes = columnar_min_nodes
        self._columns: Columns | None = None
        self.row_aggregates: dict[object, object] = {}

    @property
    def columns(self) -> Columns | None:
        """The columnar view (backend/cache/columnar.py), made on first use; None while the
        snapshot has fewer than ``columnar_min_nodes`` nodes. Without it the batch forms, the
        tracked sums and numpy stay out and every plugin runs node by node, which decides the
        same (tests/test_batch_equivalence.py) and, on a few nodes, costs less than importing
        numpy. The Scheduler's snapshot starts the view at COLUMNAR_MIN_NODES; a snapshot made
        directly (tests, from_nodes_and_pods) has it at any size. Once made, it is kept."""
        cols = self._columns
        if cols is None:
            if len(self.node_info_list) < self.columnar_min_nodes:
                return None
            cols = self._columns = Columns(self)
            self.replaced_rows = None  # rows replaced before the view existed: sync every row
        return cols

    @property
    def image_index(self) -> dict[str, list[tuple[int, ImageStateSummary]]]:
        """Image name -> the (row, summary) of each node holding it, in row order."""
        index = self._image_index
        if index is None:
            index = {}
            for i, info in enumerate(self.node_info_list):
                for image_name, summary in info.image_states.items():
                    index.setdefault(image_name, []).append((i, summary))
            self._image_index = index
        return index

    def image_states_changed(self) -> None:
        """A NodeInfo's image_states were replaced: the image index is made again on next use."""
        self._image_index = None

    # NodeInfoLister (List is last: a method named ``list`` hides the builtin in the
    # annotations of the methods after it)
    def get(self, node_name: str) -> NodeInfo | None:
        return self.node_info_map.get(node_name)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_affinity_node_info_list

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_required_anti_affinity_node_info_list

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def list(self) -> list[NodeInfo]:
        """NodeInfos().List(): every node of the snapshot, in the cache's zone order."""
        return self.node_info_list

    # StorageInfoLister
    def is_pvc_used_by_pods(self, key: str) -> bool:
        return key in self.used_pvc_set

    @staticmethod
    def from_nodes_and_pods(nodes: Iterable[Node], pods: Iterable[Pod]) -> "Snapshot":
        """A standalone snapshot (tests), made through a Cache as the scheduler makes its own:
        unlike upstream's NewSnapshot (a test helper giving each node its own image sizes),
        image states are the cache's cluster-wide ones (image_states.py)."""
        cache = Cache()
        for node in nodes:
            cache.add_node(node)
        for pod in pods:
            if pod.node_name and not pod.is_terminal:
                cache.add_pod(pod)
        snap = Snapshot()
        snap.tracks_rows = False
        cache.update_snapshot(snap)
        return snap


class Cache:
    """Live cluster state: nodes, bound pods and assumed pods (cache.go)."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        self.node_tree = NodeTree()
        self.pod_states: dict[str, Pod] = {}  # uid -> pod as it is in the cache (with nodeName)
        self.assumed_pods: set[str] = set()
        # told the uid whenever a pod enters or leaves assumed_pods (the scheduler keeps each
        # pod group's scheduled count with it)
        self.on_assumed_change: Callable[[str], None] | None = None
        self.image_states = ImageStates()
        self._structure_changed = True
        self._dirty: set[str] = set()
        # The nodes added since the last update_snapshot, in order, while every change of the
        # node set was a new node taking the last place of the node tree's list; None after any
        # other change (or before the first update): the snapshot then lists every node again.
        self._appended: list[str] | None = None

    # --- nodes ---------------------------------------------------------------------------
    def add_node(self, node: Node) -> NodeInfo:
        info = self.nodes.get(node.name)
        new = info is None
        if info is None:
            info = NodeInfo()
            self.nodes[node.name] = info
        else:
            self.node_tree.remove_node(info.node)  # type: ignore[arg-type]
            self.image_states.remove_node(info.node)
        self.image_states.add_node(node)
        info.set_node(node)
        last = self.node_tree.add_node(node)
        if self._appended is not None:
            if new and last:
                self._appended.append(node.name)
            else:
                self._appended = None
        self._structure_changed = True
        return info

    def update_node(self, old: Node, new: Node) -> NodeInfo:
        """UpdateNode: the node's images leave the image states and the new ones join them
        (an image it shares with other nodes keeps its first size; see image_states.py)."""
        info = self.nodes[old.name]
        self.node_tree.update_node(old, new)
        self.image_states.remove_node(info.node)
        self.image_states.add_node(new)
        info.set_node(new)
        self._structure_changed = True  # labels, images or zone may have changed
        self._appended = None
        return info

    def remove_node(self, node: Node) -> None:
        """The node goes; its pods stay in pod_states (as upstream, until their deletion)."""
        info = self.nodes.pop(node.name, None)
        if info is not None:
            self.node_tree.remove_node(node)
            self.image_states.remove_node(node)
            self._structure_changed = True
            self._appended = None

    # --- pods ----------------------------------------------------------------------------
    def add_pod(self, pod: Pod) -> None:
        """A bound pod (or the confirmation of an assumed one)."""
        if pod.uid in self.assumed_pods:
            self._unassume(pod.uid)
            current = self.pod_states[pod.uid]
            if current.node_name == pod.node_name:
                self.pod_states[pod.uid] = pod
                return
            self._remove_from_node(current)
        self._add_to_node(pod)

    def remove_pod(self, pod: Pod) -> None:
        current = self.pod_states.pop(pod.uid, None)
        self._unassume(pod.uid)
        if current is not None:
            self._remove_from_node(current)

    def assume_pod(self, pod: Pod) -> None:
        """AssumePod: the pod (with nodeName = the chosen host) counts on its node from now on."""
        if pod.uid in self.pod_states:
            raise ValueError(f"pod {pod.key}({pod.uid}) is in the cache, so can't be assumed")
        self._add_to_node(pod)
        self.assumed_pods.add(pod.uid)
        if self.on_assumed_change is not None:
            self.on_assumed_change(pod.uid)

    def finish_binding(self, pod: Pod) -> None:
        """The binding succeeded: in this simulation the pod is confirmed at once."""
        self._unassume(pod.uid)

    def _unassume(self, uid: str) -> None:
        if uid in self.assumed_pods:
            self.assumed_pods.discard(uid)
            if self.on_assumed_change is not None:
                self.on_assumed_change(uid)

    def forget_pod(self, pod: Pod) -> None:
        if pod.uid not in self.assumed_pods:
            raise ValueError(f"pod {pod.key}({pod.uid}) was not assumed, so can't be forgotten")
        self.remove_pod(pod)

    def is_assumed_pod(self, pod: Pod) -> bool:
        return pod.uid in self.assumed_pods

    def get_pod(self, uid: str) -> Pod | None:
        return self.pod_states.get(uid)

    def _add_to_node(self, pod: Pod) -> None:
        info = self.nodes.get(pod.node_name)
        if info is None:
            # A pod bound to a node the snapshot lacks: kept, as upstream keeps an "imaginary" node.
            info = NodeInfo()
            self.nodes[pod.node_name] = info
        info.add_pod_info(PodInfo.of(pod))
        self.pod_states[pod.uid] = pod
        self._dirty.add(pod.node_name)

    def _remove_from_node(self, pod: Pod) -> None:
        info = self.nodes.get(pod.node_name)
        if info is not None:
            info.remove_pod(pod)
            self._dirty.add(pod.node_name)

    def node_count(self) -> int:
        return self.node_tree.num_nodes

    # --- snapshot ------------------------------------------------------------------------
    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Copy into the snapshot every NodeInfo that changed since its generation."""
        appended = self._appended if self._structure_changed and self._appended and self._can_append(snapshot, self._appended) else None
        # a change of the node set that appended nodes is made on the lists as they are (_append)
        structural = self._structure_changed and appended is None
        replaced: list[tuple[NodeInfo, NodeInfo]] = []
        # Without a structural change only nodes whose pods changed can have moved on: visit
        # those alone, so a cycle costs O(changed nodes), not O(cluster).
        if structural:
            names: Iterable[str] = self.nodes
        else:
            fresh = set(appended or ())
            names = [n for n in self._dirty if n in self.nodes and n not in fresh]
        pvc_changed = structural
        recount = structural  # used_pvc_set from every node, not the replaced ones
        for name in names:
            info = self.nodes[name]
            if info.node is None or info.generation <= snapshot.generation:
                continue
            old = snapshot.node_info_map.get(name)
            clone = self._snapshot_node_info(snapshot, name, old)
            if old is not None:
                clone.index = old.index
                replaced.append((old, clone))
            else:
                recount = True
            if not pvc_changed and (clone.pvc_ref_counts or (old is not None and old.pvc_ref_counts)):
                pvc_changed = True
            snapshot.node_info_map[name] = clone
            if old is not None and not structural:
                snapshot.node_info_list[old.index] = clone
                if snapshot.replaced_rows is not None:
                    snapshot.replaced_rows.add(old.index)
        if structural:
            self._rebuild_lists(snapshot)
            snapshot.replaced_rows = None
        elif not self._replace_in_affinity_lists(snapshot, replaced):
            self._rebuild_affinity_lists(snapshot)
        added = self._append(snapshot, appended) if appended else []
        if pvc_changed or any(clone.pvc_ref_counts for _, clone in added):
            self._update_used_pvc_set(snapshot, None if recount else [*replaced, *added])
        snapshot.generation = NodeInfo._generation_counter
        self._structure_changed = False
        self._dirty.clear()
        self._appended = []

    def _can_append(self, snapshot: Snapshot, appended: list[str]) -> bool:
        """Whether the node set of ``snapshot`` changed only by ``appended``, new nodes at the
        end of the node tree's list, in order: then update_snapshot appends their clones instead
        of listing every node again, O(changed nodes) instead of O(nodes) (a cluster-autoscaler
        estimate adds thousands of nodes one by one, each followed by a cycle). Not when the
        snapshot is not the one the cache last updated (its nodes and the appended ones are not
        the node tree's, or a changed node is not in it)."""
        by_name = snapshot.node_info_map
        if len(by_name) + len(appended) != self.node_tree.num_nodes or any(name in by_name for name in appended):
            return False
        fresh = set(appended)
        generation = snapshot.generation
        return all(name in by_name for name in self._dirty if name in self.nodes and name not in fresh) and all(
            self.nodes[name].generation > generation for name in appended
        )

    def _append(self, snapshot: Snapshot, appended: list[str]) -> list[tuple[NodeInfo | None, NodeInfo]]:
        """The clones of the appended nodes at the end of new lists (as after a change of the node
        set), the have-pods-with-affinity lists and the replaced rows with them; (None, clone)
        for each, as usedPVCSet's update takes them."""
        infos = list(snapshot.node_info_list)
        added: list[tuple[NodeInfo | None, NodeInfo]] = []
        for name in appended:
            clone = self._snapshot_node_info(snapshot, name, None)
            clone.index = self.nodes[name].index = len(infos)
            infos.append(clone)
            snapshot.node_info_map[name] = clone
            added.append((None, clone))
        snapshot.node_info_list = infos
        new_rows = range(len(infos) - len(appended), len(infos))
        snapshot.have_pods_with_affinity_node_info_list = [
            *snapshot.have_pods_with_affinity_node_info_list,
            *(infos[i] for i in new_rows if infos[i].pods_with_affinity),
        ]
        snapshot.have_pods_with_required_anti_affinity_node_info_list = [
            *snapshot.have_pods_with_required_anti_affinity_node_info_list,
            *(infos[i] for i in new_rows if infos[i].pods_with_required_anti_affinity),
        ]
        if snapshot.replaced_rows is not None:
            snapshot.replaced_rows.update(new_rows)
        return added

    @staticmethod
    def _update_used_pvc_set(snapshot: Snapshot, replaced: Sequence[tuple[NodeInfo | None, NodeInfo]] | None) -> None:
        """usedPVCSet: the PVC keys some node's pods use. Upstream rebuilds it from every NodeInfo
        whenever one with PVC references changed, a walk of every bound pod's claims per cycle on
        a cluster of claims; the same set is kept here by counting, per key, the nodes that use
        it and moving only the replaced nodes' counts (all of them after a structural change,
        ``replaced`` None)."""
        by_node = snapshot.pvc_keys_by_node
        if replaced is None or by_node is None:
            by_node = {}
            users: dict[str, int] = {}
            for info in snapshot.node_info_list:
                keys = tuple(info.pvc_ref_counts)
                if keys:
                    by_node[info.name] = keys
                    for key in keys:
                        users[key] = users.get(key, 0) + 1
            snapshot.pvc_keys_by_node, snapshot.pvc_users = by_node, users
            snapshot.used_pvc_set = set(users)
            return
        users, used = snapshot.pvc_users, snapshot.used_pvc_set
        for _, info in replaced:
            name = info.name
            keys = tuple(info.pvc_ref_counts)
            before = by_node.pop(name, ())
            if keys == before:
                if keys:
                    by_node[name] = keys
                continue
            for key in before:
                left = users[key] - 1
                if left:
                    users[key] = left
                else:
                    del users[key]
                    used.discard(key)
            for key in keys:
                count = users.get(key, 0)
                users[key] = count + 1
                if not count:
                    used.add(key)
            if keys:
                by_node[name] = keys

    def _snapshot_node_info(self, snapshot: Snapshot, name: str, old: NodeInfo | None) -> NodeInfo:
        """NodeInfo.SnapshotConcrete of the cache's NodeInfo: its image states are the cache's
        summaries as they are now (size, holder count), taken again only when some node's
        images changed since this node's last clone (the same values otherwise)."""
        clone = self.nodes[name].clone()
        epoch = self.image_states.epoch
        if old is not None and snapshot.image_epochs.get(name) == epoch:
            clone.image_states = old.image_states
            return clone
        clone.image_states = self.image_states.summaries(name)
        snapshot.image_epochs[name] = epoch
        if old is None or clone.image_states != old.image_states:
            snapshot.image_states_changed()
        else:
            clone.image_states = old.image_states
        return clone

    def _rebuild_lists(self, snapshot: Snapshot) -> None:
        names = self.node_tree.list()
        snapshot.node_info_map = {n: snapshot.node_info_map.get(n) or self._snapshot_node_info(snapshot, n, None) for n in names}
        for gone in set(snapshot.image_epochs) - snapshot.node_info_map.keys():
            del snapshot.image_epochs[gone]
        snapshot.node_info_list = []
        for i, n in enumerate(names):
            info = snapshot.node_info_map[n]
            info.index = i
            self.nodes[n].index = i
            snapshot.node_info_list.append(info)
        snapshot.image_states_changed()
        self._rebuild_affinity_lists(snapshot)

    @staticmethod
    def _replace_in_affinity_lists(snapshot: Snapshot, replaced: list[tuple[NodeInfo, NodeInfo]]) -> bool:
        """Put each replaced NodeInfo's clone where the old one stood in the have-pods-with-
        affinity lists, drop it, or insert it where the node order puts it: the lists are the
        node list filtered, so they are sorted by NodeInfo.index, and a bisection finds the
        place (O(log n) per change, where upstream walks every node). False when a list is
        not as expected (the caller rebuilds them from the node list)."""
        lists = (
            (snapshot.have_pods_with_affinity_node_info_list, "pods_with_affinity"),
            (snapshot.have_pods_with_required_anti_affinity_node_info_list, "pods_with_required_anti_affinity"),
        )
        for old, clone in replaced:
            for infos, attr in lists:
                was, now = bool(getattr(old, attr)), bool(getattr(clone, attr))
                if not was and not now:
                    continue
                pos = bisect_left(infos, old.index, key=_INDEX)
                if (pos < len(infos) and infos[pos] is old) != was:
                    return False
                if was and now:
                    infos[pos] = clone
                elif was:
                    del infos[pos]
                else:
                    infos.insert(pos, clone)
        return True

    @staticmethod
    def _rebuild_affinity_lists(snapshot: Snapshot) -> None:
        snapshot.have_pods_with_affinity_node_info_list = [n for n in snapshot.node_info_list if n.pods_with_affinity]
        snapshot.have_pods_with_required_anti_affinity_node_info_list = [
            n for n in snapshot.node_info_list if n.pods_with_required_anti_affinity
        ]
